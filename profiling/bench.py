#!/usr/bin/env python3
"""crdyn benchmark driver (`make bench`): the machine's ceilings, a mesh
ladder of plates and cylinders, the element flop counts, scaling exponents
and the CalculiX peer on the 100x100 plate; writes profiling/RESULTS.md and
build/bench/results.json.  Every figure comes from this one run.

usage: bench.py [--build build] [--out build/bench] [--results profiling/RESULTS.md]
                [--plates 32,64,128,256] [--cylinders 32,64,128] [--threads 1]
                [--peers auto|no|yes] [--smoke]
--smoke: a 4x4 plate only, tiny ceilings, no peers (for the test suite)."""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
import ccx_plate  # noqa: E402
import ops_plate  # noqa: E402

E, NU, RHO, H = ccx_plate.E, ccx_plate.NU, ccx_plate.RHO, ccx_plate.H
RHO_INF = 0.9          # generalized-alpha; ccx HHT alpha = -0.05 is rho_inf ~ 0.905
F_TIP = 2020.0         # total z force on the free edge [N]
IMPL_STEPS, IMPL_DT = 2, 1e-3
EXPL_STEPS = 20
PEER_N, PEER_IMPL_T, PEER_EXPL_T = 100, 0.02, 5e-4
IMPL_AMP = [(0, 0), (0.01, 1), (1, 1)]
EXPL_AMP = [(0, 0), (1e-4, 1), (1, 1)]


def env_threads(t):
    e = dict(os.environ)
    e.update(OMP_THREAD_LIMIT=str(t), OMP_WAIT_POLICY="passive", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS=str(t))
    return e


def sh(cmd, env=None, timeout=900):
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if r.returncode:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    return r.stdout


# ------------------------------------------------------------------ cases
def case(kind, n, integ, t_end, dt, amp, outdir, probe):
    if kind == "plate":
        mesh = {"type": "rectangle", "lx": 1, "ly": 1, "nx": n, "ny": n}
        fix, load, force = "x0", "x1", [0, 0, F_TIP]
    else:  # cantilever tube, clamped at y = 0, lateral force at y = L
        mesh = {"type": "cylinder", "radius": 0.5, "length": 2, "angle": [0, 360], "nc": n, "nl": n}
        fix, load, force = "y0", "y1", [F_TIP, 0, 0]
    st = {"integrator": integ, "t_end": t_end, "dt": dt}
    if integ == "implicit":
        # plain generalized-alpha, as the peers run it (ccx HHT, OpenSees
        # GeneralizedAlpha have no monotone energy control)
        st.update(rho_inf=RHO_INF, tolerance=1e-8, monotone_energy=False)
    return {"format": 1, "title": "bench %s %dx%d %s" % (kind, n, n, integ),
            "mesh": {"generate": mesh},
            "sections": [{"elements": "all", "E": E, "nu": NU, "rho": RHO, "thickness": H}],
            "supports": [{"set": fix, "fix": "all"}],
            "loads": [{"set": load, "force": force, "total": True, "amplitude": [list(a) for a in amp]}],
            "analysis": {"type": "dynamic", "stages": [st]},
            "output": {"dir": outdir, "history_every": 1, "vtk_every": 0,
                       "probes": [{"name": "tip", "node": probe}]}}


def run_crdyn(a, name, cs):
    d = os.path.join(a.out, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "case.json")
    cs["output"]["dir"] = os.path.join(d, "out")
    with open(path, "w") as f:
        json.dump(cs, f, indent=1)
    t0 = time.monotonic()
    sh([os.path.join(a.build, "crdyn"), "run", path, "--quiet", "--timing", "--threads", str(a.threads)],
       env=env_threads(a.threads), timeout=1200)
    wall = time.monotonic() - t0
    with open(os.path.join(d, "out", "summary.json")) as f:
        s = json.load(f)
    s["process_wall_s"] = wall
    return s


def read_tip(outdir, comp="tip.uz"):
    import csv
    with open(os.path.join(outdir, "history.csv")) as f:
        rows = list(csv.DictReader(f))
    return [(float(r["time"]), float(r[comp])) for r in rows]


# -------------------------------------------------------------- ceilings
def ceilings(a):
    b = os.path.join(a.build, "bench")
    n, reps, mib = (300, 2, 8) if a.smoke else (2000, 5, 256)
    c = {}
    for t in (1, 2):
        e = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
        c["dgemm_%d" % t] = json.loads(sh([os.path.join(b, "ceil_dgemm"), str(n), str(reps)], env=e))
        c["stream_%d" % t] = json.loads(sh([os.path.join(b, "ceil_stream"), str(mib), "10"], env=e))
    return c


def flopcount(a):
    w = 1.0 - RHO_INF / (RHO_INF + 1.0)
    return json.loads(sh([os.path.join(a.build, "bench", "flopcount"), "%.9g" % w]))


# ---------------------------------------------------------------- ladder
def ladder_row(a, kind, n, fl):
    probe = n + (n + 1) * (n // 2) if kind == "plate" else n * n  # tube: first node of the end ring
    si = run_crdyn(a, "%s%d_implicit" % (kind, n),
                   case(kind, n, "implicit", IMPL_STEPS * IMPL_DT, IMPL_DT, IMPL_AMP, "", probe))
    # explicit: one step of "auto" gives the stable dt, then EXPL_STEPS steps of 0.9 of it
    se = run_crdyn(a, "%s%d_explicit" % (kind, n), case(kind, n, "explicit", 1e-12, "auto", EXPL_AMP, "", probe))
    dts = se["dynamics"]["explicit_stable_dt"]
    cs = case(kind, n, "explicit", EXPL_STEPS * 0.9 * dts, 0.9 * dts, EXPL_AMP, "", probe)
    se = run_crdyn(a, "%s%d_explicit" % (kind, n), cs)
    ti, te = si["timing"], se["timing"]
    ne = si["counts"]["elements"]
    fl_tan = fl["implicit"]["flops"] + fl["implicit_inertia_and_packing"]["flops"]
    r = {"kind": kind, "n": n, "elements": ne, "nodes": si["counts"]["nodes"], "dofs": si["counts"]["equations"],
         # the fastest pass that forms the tangent: the steady rate (run.c)
         "tangent_elem_per_s": 1.0 / ti["element_implicit_tangent_fastest_pass_s_each"],
         "tangent_mean_elem_per_s": 1.0 / ti["element_implicit_tangent"]["seconds_each"],
         "force_elem_per_s": 1.0 / te["element_force"]["seconds_each"],
         "assembly_s": ti["assembly"]["seconds_each"],
         "analyse_s": ti["analyse"]["seconds_each"],
         "factor_first_s": ti["factorize_first"]["seconds"],
         "refactor_s": ti["refactorize_min_s"], "refactor_gflops": ti["refactorize_gflops_per_s"],
         "factor_flops": ti["factor_flops"], "nnz_L": ti["nnz_L"],
         "nnz_L_stored": ti.get("nnz_L_stored", ti["nnz_L"]),
         "solve_s": ti["solve"]["seconds_each"],
         "newton_per_step": si["dynamics"]["newton_per_implicit_step"],
         "newton_s": ti["newton_iteration"]["seconds_each"],
         "implicit_step_s": ti["implicit_step"]["seconds_each"],
         "explicit_step_s": te["explicit_step"]["seconds_each"],
         "explicit_dt": se["dynamics"]["explicit_stable_dt"],
         "rss_mib": max(si["timing"]["peak_rss_mib"], se["timing"]["peak_rss_mib"])}
    r["tangent_gflops"] = r["tangent_elem_per_s"] * fl_tan * 1e-9
    r["force_gflops"] = r["force_elem_per_s"] * fl["force"]["flops"] * 1e-9
    # the least memory traffic of an explicit step: per element the gathered
    # node data (x0, p0, d, p: 48 doubles) and f_e written and read back (40),
    # its equations (20 int) and nodes (4 int); per node the update of
    # d, p, v, w, a, wa, vh, wh (3 each, read + write) and the force vectors
    r["explicit_bytes"] = ne * (88 * 8 + 24 * 4) + r["nodes"] * (48 * 8 + 10 * 8)
    return r


def fit(xs, ys):
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx > 0 else float("nan")


# ----------------------------------------------------------------- peers
def interp(hist, t):
    for (t0, u0), (t1, u1) in zip(hist, hist[1:]):
        if t0 <= t <= t1:
            return u0 + (u1 - u0) * (t - t0) / (t1 - t0) if t1 > t0 else u1
    return None


def compare(ref, other):
    """max |other - ref| over ref's times, relative to max |ref|."""
    peak = max(abs(u) for _, u in ref) or 1.0
    errs = [abs(interp(other, t) - u) for t, u in ref if interp(other, t) is not None]
    return max(errs) / peak if errs else float("nan"), peak


def best(runs, key):
    """The run of runs with the smallest key(run) (the least disturbed by
    the machine's other jobs), with every run's key beside it."""
    keys = [key(r) for r in runs]
    b = dict(runs[keys.index(min(keys))])
    b["reps"] = keys
    return b


def peers(a):
    n = PEER_N
    probe = ccx_plate.tip_node(n)
    p = {"n": n, "reps": a.peer_reps}
    # Each timed comparison runs a.peer_reps times, crdyn and ccx in turn
    # (so that both see the same spells of load), and keeps each one's
    # fastest run: on a shared 2-core VM single runs move by 15-25 %.
    sis, cxs = [], []
    for rep in range(a.peer_reps):
        sis.append(run_crdyn(a, "peer_implicit", case("plate", n, "implicit", PEER_IMPL_T, IMPL_DT, IMPL_AMP, "",
                                                      probe)))
        cxs.append(ccx_plate.run(os.path.join(a.out, "ccx_implicit"), n, "implicit", IMPL_DT, PEER_IMPL_T, F_TIP,
                                 IMPL_AMP, threads=a.threads, timeout=1500))
    si = best(sis, lambda s: s["timing"]["newton_iteration"]["seconds_each"])
    p["crdyn_implicit"] = {k: si["timing"][k] for k in ("newton_iteration", "implicit_step", "element_implicit",
                                                         "refactorize", "solve")}
    p["crdyn_implicit"]["equations"] = si["counts"]["equations"]
    p["crdyn_implicit"]["newton_per_step"] = si["dynamics"]["newton_per_implicit_step"]
    p["crdyn_implicit"]["reps_newton_s"] = si["reps"]
    hi = read_tip(os.path.join(a.out, "peer_implicit", "out"))
    cx = best(cxs, lambda c: c.get("loop_s", c["wall_s"]) / max(c["newton_iterations"], 1))
    p["ccx_implicit"] = {k: v for k, v in cx.items() if k not in ("tip", "reps")}
    p["ccx_implicit"]["reps_newton_s"] = cx["reps"]
    if cx.get("tip"):
        p["implicit_tip_error"], p["implicit_tip_peak"] = compare(cx["tip"], hi)
    p["implicit_tip"] = {"ccx": cx.get("tip", []), "crdyn": hi}
    # explicit: ccx takes its Courant step; crdyn its own stable step.  ccx
    # prints no line per explicit increment: its increment time is the
    # difference of a long and a short run over their increments
    ses, shorts, longs = [], [], []
    for rep in range(a.peer_reps):
        ses.append(run_crdyn(a, "peer_explicit", case("plate", n, "explicit", PEER_EXPL_T, "auto", EXPL_AMP, "",
                                                      probe)))
        shorts.append(ccx_plate.run(os.path.join(a.out, "ccx_explicit_short"), n, "explicit", 1e-6, 10 * 6.4e-7,
                                    F_TIP, EXPL_AMP, threads=a.threads))
        longs.append(ccx_plate.run(os.path.join(a.out, "ccx_explicit"), n, "explicit", 1e-6, PEER_EXPL_T, F_TIP,
                                   EXPL_AMP, threads=a.threads, timeout=1500))
    se = best(ses, lambda s: s["timing"]["explicit_step"]["seconds_each"])
    dts = se["dynamics"]["explicit_stable_dt"]
    p["crdyn_explicit"] = {"explicit_step": se["timing"]["explicit_step"], "dt": dts,
                           "element_force": se["timing"]["element_force"], "reps_step_s": se["reps"]}
    he = read_tip(os.path.join(a.out, "peer_explicit", "out"))
    short = best(shorts, lambda c: c["wall_s"])
    cx = best(longs, lambda c: c["wall_s"])
    p["ccx_explicit"] = {k: v for k, v in cx.items() if k not in ("tip", "reps")}
    dn = cx["increments"] - short["increments"]
    p["ccx_explicit"]["increment_s"] = (cx["wall_s"] - short["wall_s"]) / dn if dn > 0 else float("nan")
    p["ccx_explicit"]["reps_increment_s"] = [(l["wall_s"] - s_["wall_s"]) / dn if dn > 0 else float("nan")
                                             for l, s_ in zip(longs, shorts)]
    if cx.get("tip"):
        p["explicit_tip_error"], p["explicit_tip_peak"] = compare(cx["tip"], he)
    p["explicit_tip"] = {"ccx": cx.get("tip", [])[::10], "crdyn": he[::10]}
    # cross-check of the explicit difference: the explicit pulse run
    # implicitly (small dt) by both, ccx with S4 (C3D8I) instead of S4R
    dtc = PEER_EXPL_T / 20
    sc = run_crdyn(a, "peer_pulse_implicit", case("plate", n, "implicit", PEER_EXPL_T, dtc, EXPL_AMP, "", probe))
    hc = read_tip(os.path.join(a.out, "peer_pulse_implicit", "out"))
    cc = ccx_plate.run(os.path.join(a.out, "ccx_pulse_implicit"), n, "implicit", dtc, PEER_EXPL_T, F_TIP, EXPL_AMP,
                       threads=a.threads, timeout=900)
    if cc.get("tip") and cx.get("tip"):
        p["pulse_check"] = {"crdyn_implicit_vs_ccx_S4_implicit": compare(cc["tip"], hc)[0],
                            "crdyn_explicit_vs_crdyn_implicit": compare(hc, he)[0],
                            "ccx_S4R_explicit_vs_ccx_S4_implicit": compare(cc["tip"], cx["tip"])[0],
                            "crdyn_explicit_vs_ccx_S4_implicit": compare(cc["tip"], he)[0],
                            "dt": dtc, "crdyn_newton_per_step": sc["dynamics"]["newton_per_implicit_step"]}
    p["opensees"] = opensees_peer(a, se, he)
    return p


OPS_MAX_IT = 5      # Newton iterations of the one timed OpenSees implicit step


def opensees_peer(a, se, he):
    """OpenSees (openseespy, ASDShellQ4 -corotational) on the same plate,
    bounded: one implicit step of at most OPS_MAX_IT Newton iterations (time
    per iteration; its Newton does not converge here, see profiling/README.md)
    and the explicit pulse at crdyn's stable dt up to a.ops_explicit_t
    (default: the whole pulse of the ccx comparison, about 310 increments
    of ~0.9 s here; time per increment, tip against crdyn's explicit
    history over those times: the one shell peer whose explicit procedure
    gives the answer its implicit peers give, profiling/README.md)."""
    n = PEER_N
    why = ops_plate.available()
    if why:
        return {"error": why}
    o = {"version": ops_plate.version()}
    ri = ops_plate.run(os.path.join(a.out, "ops_implicit"), n, "implicit", IMPL_DT, IMPL_DT, F_TIP, IMPL_AMP,
                       rho_inf=RHO_INF, max_iter=OPS_MAX_IT, threads=a.threads, timeout=600)
    o["implicit"] = {k: v for k, v in ri.items() if k != "tip"}
    if ri.get("newton_iterations"):
        o["implicit"]["newton_s"] = ri["loop_s"] / ri["newton_iterations"]
    dts = se["dynamics"]["explicit_stable_dt"]
    re_ = ops_plate.run(os.path.join(a.out, "ops_explicit"), n, "explicit", dts, a.ops_explicit_t, F_TIP, EXPL_AMP,
                        threads=a.threads, timeout=1800)
    o["explicit"] = {k: v for k, v in re_.items() if k != "tip"}
    if re_.get("increments"):
        o["explicit"]["increment_s"] = re_["loop_s"] / re_["increments"]
        tip = re_.get("tip", [])
        cr = [(t, u) for t, u in he if t <= tip[-1][0] * (1 + 1e-9)] if tip else []
        if tip and cr:
            # OpenSees is the reference here, as ccx is in peer_report
            o["explicit"]["tip_error"], o["explicit"]["tip_peak"] = compare(tip, cr)
            o["explicit_tip"] = {"opensees": tip, "crdyn": cr}
    return o


# --------------------------------------------------------------- report
def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d cores, %s, load average at start %s" % (cpu, os.cpu_count(), platform.platform(),
                                                           " ".join("%.2f" % x for x in os.getloadavg()))


def g(x, f="%.3g"):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f % x


def report(a, res):
    c, fl, rows = res["ceilings"], res["flops"], res["ladder"]
    d1, d2 = c["dgemm_1"]["gflops"], c["dgemm_2"]["gflops"]
    s1, s2 = c["stream_1"]["gbytes_per_s"], c["stream_2"]["gbytes_per_s"]
    dg = d1 if a.threads == 1 else d2
    st = s1 if a.threads == 1 else s2
    L = ["# crdyn benchmark results", "",
         "Generated by `make bench` (profiling/bench.py) on %s UTC." % res["date"], "",
         "Machine: %s." % res["machine"], "",
         "**This machine is a 2-core VM shared with other jobs while this ran: absolute figures move by "
         "+-25% or more with the load; the ratios below are of figures measured in this same run.**", "",
         "crdyn ran with `--threads %d`, `OMP_THREAD_LIMIT=%d OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive`; "
         "ratios use the ceilings for the same thread count." % (a.threads, a.threads), "",
         "## Ceilings (same run)", "",
         "| ceiling | 1 thread | 2 threads |", "|---|---|---|",
         "| DGEMM (OpenBLAS, n=%d) GFLOP/s | %.1f | %.1f |" % (c["dgemm_1"]["n"], d1, d2),
         "| triad bandwidth GB/s | %.1f | %.1f |" % (s1, s2), "",
         "## Element flop counts", "",
         "Counted by profiling/src/flopcount.cpp: the element headers compiled as C++ with `double` replaced by a "
         "counting type (+ - * / sqrt one flop each, a multiply-add two), on a plate element of the bench "
         "meshes. perf has no hardware counters in this VM (docs/performance.md), so this is the method.", "",
         "| kernel | flops/element |", "|---|---|",
         "| static tangent + force (`crd_q4_global`, K) | %d |" % fl["tangent"]["flops"],
         "| internal force only (`crd_q4_global`, explicit) | %d |" % fl["force"]["flops"],
         "| implicit midpoint force + tangent + skew part (`crd_q4_global_mid`) + inertia/packing | %d |"
         % (fl["implicit"]["flops"] + fl["implicit_inertia_and_packing"]["flops"]), "",
         "## Ladder", "",
         "%d implicit steps (dt = %g s, Newton) and %d explicit steps (0.9 x stable dt) per mesh; "
         "cantilever plate (1 m, clamped edge, tip load) and cantilever tube (r = 0.5 m, L = 2 m)."
         % (IMPL_STEPS, IMPL_DT, EXPL_STEPS), "",
         "tangent elem/s: the fastest of the midpoint passes that form the tangent (force, tangent, skew part and "
         "inertia), the rate of a long run; the mean over those passes, which includes the first pass's first "
         "touch of the 5.2 KB of element output per element, is %s elem/s on the largest plate."
         % g(max((r for r in rows if r["kind"] == "plate"), key=lambda r: r["elements"])
             .get("tangent_mean_elem_per_s")), "",
         "| mesh | elements | DOFs | tangent elem/s | tangent GFLOP/s (% DGEMM) | force elem/s | force GFLOP/s "
         "(% DGEMM) | assembly s | analyse s | 1st factor s | refactor s | refactor GFLOP/s (% 1-core DGEMM) | "
         "nnz(L) (stored) | solve s | Newton/step | s/Newton it | s/implicit step | s/explicit step | explicit GB/s "
         "(% triad) | peak RSS MiB |",
         "|" + "---|" * 20]
    for r in rows:
        bw = r["explicit_bytes"] / r["explicit_step_s"] * 1e-9
        L.append("| %s %d | %d | %d | %.3g | %.2f (%.0f%%) | %.3g | %.2f (%.0f%%) | %.3g | %.3g | %.3g | %.3g | "
                 "%.1f (%.0f%%) | %.3g (%.3g) | %.3g | %.2f | %.3g | %.3g | %.3g | %.2f (%.0f%%) | %.0f |" % (
                     r["kind"], r["n"], r["elements"], r["dofs"], r["tangent_elem_per_s"], r["tangent_gflops"],
                     100 * r["tangent_gflops"] / dg, r["force_elem_per_s"], r["force_gflops"],
                     100 * r["force_gflops"] / dg, r["assembly_s"], r["analyse_s"], r["factor_first_s"],
                     r["refactor_s"], r["refactor_gflops"], 100 * r["refactor_gflops"] / d1, r["nnz_L"],
                     r["nnz_L_stored"], r["solve_s"], r["newton_per_step"], r["newton_s"], r["implicit_step_s"],
                     r["explicit_step_s"], bw, 100 * bw / st, r["rss_mib"]))
    L += ["", "## Scaling exponents (cost ~ elements^k, least squares over the plate ladder)", "",
          "| phase | k | expected (2D mesh, nested dissection) |", "|---|---|---|"]
    plates = [r for r in rows if r["kind"] == "plate"]
    ne = [r["elements"] for r in plates]
    for key, label, exp in [("tangent_elem_per_s", "element tangent (time per pass)", "1"),
                            ("force_elem_per_s", "internal force (time per pass)", "1"),
                            ("assembly_s", "assembly", "1"), ("analyse_s", "analyse", "~1-1.2"),
                            ("refactor_s", "refactorization", "1.5"), ("factor_flops", "factor flops", "1.5"),
                            ("nnz_L", "nnz(L)", "1 (n log n)"), ("solve_s", "solve", "1 (n log n)"),
                            ("implicit_step_s", "implicit step", "1.5 asymptotically"),
                            ("explicit_step_s", "explicit step", "1")]:
        ys = [r["elements"] / r[key] if key.endswith("per_s") else r[key] for r in plates]
        L.append("| %s | %s | %s |" % (label, g(fit(ne, ys), "%.2f"), exp))
    res["exponents"] = {}
    L += ["", "## Targets", ""]
    big = max(rows, key=lambda r: r["elements"] if r["kind"] == "plate" else 0)
    t_ratio = big["tangent_gflops"] / dg
    f_ratio = max(r["refactor_gflops"] for r in rows) / d1
    L.append("- element tangent at %.0f%% of what the counted flops allow at the DGEMM rate (target >= 40%%): "
             "**%s**" % (100 * t_ratio, "met" if t_ratio >= 0.4 else "NOT met"))
    L.append("- best CHOLMOD refactorization at %.0f%% of 1-core DGEMM (target >= 45%%): **%s**"
             % (100 * f_ratio, "met" if f_ratio >= 0.45 else "NOT met"))
    p = res.get("peers")
    if p:
        L += peer_report(p)
    if res.get("mpi"):
        L += ["", "## Over MPI ranks: one and two ranks against one process", "",
              "profiling/mpi_scaling.sh (build-mpi/crdyn, replicated state, docs/distributed.md), in this run:", ""]
        L += [ln for ln in res["mpi"].splitlines() if ln.startswith("|")]
    elif not a.smoke:
        L += ["", "## Over MPI ranks", "", "Not measured in this run: no build-mpi/crdyn (make test-mpi) or no mpirun."]
    L += ["", "## Analysis", "", "profiling/README.md: why the targets not met are not met, and what would "
          "meet them (written from these figures)."]
    # sections written by other scripts (e.g. opencl_ladder.sh's "# Profiling
    # results") follow the bench report and are kept as they are
    kept = ""
    if os.path.exists(a.results):
        with open(a.results) as f:
            old = f.read()
        i = old.find("\n# Profiling results")
        if i >= 0:
            kept = "\n" + old[i + 1:]
    with open(a.results, "w") as f:
        f.write("\n".join(L) + "\n" + kept)


def peer_report(p):
    tgt = []
    ci, ce = p["ccx_implicit"], p["ccx_explicit"]
    xi, xe = p["crdyn_implicit"], p["crdyn_explicit"]
    L = ["", "## Peer: CalculiX ccx 2.20 on the same %dx%d plate" % (p["n"], p["n"]), "",
         "Same mesh, material, clamped edge, tip load and amplitude; implicit dt = %g s to t = %g s "
         "(ccx `*DYNAMIC, ALPHA=-0.05, DIRECT` with NLGEOM, S4; crdyn generalized-alpha rho_inf = %g); explicit "
         "to t = %g s (ccx `*DYNAMIC, EXPLICIT` with S4R at its Courant step; crdyn central difference at its "
         "stable step).  **ccx expands every S4/S4R shell into a brick through the thickness (C3D8I/C3D8R, "
         "3 x the nodes): %s equations against crdyn's %d; its element is a 3D continuum, not a shell, so "
         "this compares time per mesh, not per DOF.**" % (IMPL_DT, PEER_IMPL_T, RHO_INF, PEER_EXPL_T,
                                                        ci.get("equations"), xi["equations"]), "",
         "| figure | crdyn | ccx | ccx / crdyn |", "|---|---|---|---|"]
    ccx_newton = ci["loop_s"] / max(ci["newton_iterations"], 1)
    ccx_step = ci["loop_s"] / max(ci["increments"], 1)
    cr_newton = xi["newton_iteration"]["seconds_each"]
    cr_step = xi["implicit_step"]["seconds_each"]
    ne = p["n"] ** 2
    cr_upd = xe["explicit_step"]["seconds_each"] / ne
    cx_upd = ce["increment_s"] / ne
    L.append("| s per Newton iteration | %.3g | %.3g | %.1f |" % (cr_newton, ccx_newton, ccx_newton / cr_newton))
    L.append("| Newton iterations per step | %.2f | %.2f | |" % (xi["newton_per_step"],
                                                               ci["newton_iterations"] / max(ci["increments"], 1)))
    L.append("| s per implicit step | %.3g | %.3g | %.1f |" % (cr_step, ccx_step, ccx_step / cr_step))
    L.append("| explicit dt s | %.3g | %.3g | |" % (xe["dt"], ce.get("dt") or float("nan")))
    L.append("| s per explicit increment | %.3g | %.3g | %.1f |" % (xe["explicit_step"]["seconds_each"],
                                                                  ce["increment_s"],
                                                                  ce["increment_s"] / xe["explicit_step"]["seconds_each"]))
    L.append("| us per explicit element update | %.3g | %.3g | %.1f |" % (1e6 * cr_upd, 1e6 * cx_upd, cx_upd / cr_upd))
    for label, ratio in (("per Newton iteration", ccx_newton / cr_newton),
                         ("per explicit element update", cx_upd / cr_upd)):
        tgt.append("- crdyn %.1fx faster than ccx %s (target >= 10x): **%s**"
                   % (ratio, label, "met" if ratio >= 10 else "NOT met"))
    L.append("| simulated time per second of wall, explicit | %.3g | %.3g | %.1f |" % (
        xe["dt"] / xe["explicit_step"]["seconds_each"], (ce.get("dt") or 0) / ce["increment_s"],
        (xe["dt"] / xe["explicit_step"]["seconds_each"]) / ((ce.get("dt") or 1) / ce["increment_s"])))
    ri, rc = xi.get("reps_newton_s"), ci.get("reps_newton_s")
    rx, rcx = xe.get("reps_step_s"), ce.get("reps_increment_s")
    if ri and rc and rx and rcx:
        L += ["", "Timings: the fastest of %d runs of each, crdyn and ccx in turn.  Run by run, ccx / crdyn per "
              "Newton iteration: %s; per explicit element update: %s." % (
                  len(ri), ", ".join("%.1f" % (c / x) for c, x in zip(rc, ri)),
                  ", ".join("%.1f" % (c / x) for c, x in zip(rcx, rx)))]
    L += ["", "Tip (mid node of the loaded edge) z displacement, max difference over ccx's output times "
          "relative to ccx's peak:", "",
          "- implicit: %s of a %s m peak (target 2%%)" % (g(100 * p.get("implicit_tip_error", float("nan")), "%.2f%%"),
                                                        g(p.get("implicit_tip_peak"), "%.4g")),
          "- explicit: %s of a %s m peak" % (g(100 * p.get("explicit_tip_error", float("nan")), "%.2f%%"),
                                            g(p.get("explicit_tip_peak"), "%.4g")), ""]
    def verdict(e):
        return "met" if e <= 0.02 else "NOT met"
    e = p.get("implicit_tip_error", float("nan"))
    tgt.append("- implicit tip history within %s of ccx's (target 2%%): **%s**" % (g(100 * e, "%.2f%%"), verdict(e)))
    pc = p.get("pulse_check")
    e = p.get("explicit_tip_error", float("nan"))
    own = pc.get("ccx_S4R_explicit_vs_ccx_S4_implicit", float("nan")) if pc else float("nan")
    if own > 0.02:
        # ccx's explicit run is no reference when it misses ccx's own
        # implicit answer of the same pulse: the answer is then checked
        # against that implicit answer and against OpenSees' explicit run
        tgt.append("- explicit tip history %s off ccx's S4R explicit run: no reference, since that run is itself "
                   "%.2f%% off ccx's S4 implicit run of the same pulse (profiling/README.md)" % (g(100 * e, "%.2f%%"),
                                                                                              100 * own))
    else:
        tgt.append("- explicit tip history within %s of ccx's (target 2%%): **%s**" % (g(100 * e, "%.2f%%"), verdict(e)))
    if pc:
        e = pc.get("crdyn_explicit_vs_ccx_S4_implicit", float("nan"))
        tgt.append("- explicit tip history within %s of ccx's S4 implicit answer for the same pulse (target 2%%): **%s**"
                   % (g(100 * e, "%.2f%%"), verdict(e)))
        L += ["Cross-check of the explicit difference: the same pulse run implicitly with dt = %g s by both "
              "(ccx with S4 = C3D8I bricks):" % pc["dt"], "",
              "- crdyn implicit vs ccx S4 implicit: %.2f%%" % (100 * pc["crdyn_implicit_vs_ccx_S4_implicit"]),
              "- crdyn explicit vs crdyn implicit: %.2f%%" % (100 * pc["crdyn_explicit_vs_crdyn_implicit"]),
              "- crdyn explicit vs ccx S4 implicit: %s" % g(100 * pc.get("crdyn_explicit_vs_ccx_S4_implicit",
                                                                        float("nan")), "%.2f%%"),
              "- ccx S4R explicit vs ccx S4 implicit: %.2f%%" % (100 * pc["ccx_S4R_explicit_vs_ccx_S4_implicit"]),
              ""]
    L += opensees_report(p, cr_newton, xe["explicit_step"]["seconds_each"])
    oe = (p.get("opensees") or {}).get("explicit", {})
    if "tip_error" in oe:
        tgt.append("- explicit tip history within %s of OpenSees' explicit run over t <= %.3g s (target 2%%): **%s**"
                   % (g(100 * oe["tip_error"], "%.4f%%"), p["opensees"]["explicit_tip"]["opensees"][-1][0],
                      verdict(oe["tip_error"])))
    L += ["### Peer targets", ""] + tgt + ["",
          "| t s | ccx uz (implicit) | crdyn uz |", "|---|---|---|"]
    for t, u in p["implicit_tip"]["ccx"][::2]:
        ui = interp(p["implicit_tip"]["crdyn"], t)
        L.append("| %.4g | %.5g | %s |" % (t, u, g(ui, "%.5g")))
    L += ["", "| t s | ccx uz (explicit) | crdyn uz |", "|---|---|---|"]
    for t, u in p["explicit_tip"]["ccx"][::4]:
        ui = interp(p["explicit_tip"]["crdyn"], t)
        L.append("| %.4g | %.5g | %s |" % (t, u, g(ui, "%.5g")))
    return L


def opensees_report(p, cr_newton, cr_inc):
    o = p.get("opensees")
    if not o:
        return []
    L = ["## Peer: OpenSees (openseespy) on the same %dx%d plate" % (p["n"], p["n"]), ""]
    if o.get("error"):
        return L + ["Not run: %s." % o["error"], ""]
    oi, oe = o.get("implicit", {}), o.get("explicit", {})
    L += ["OpenSees %s from PyPI in profiling/peers/venv: ASDShellQ4 `-corotational`, ElasticMembranePlateSection, "
          "6 DOFs per node (%s equations), 1 thread.  Implicit: GeneralizedAlpha (rho_inf = %g), Newton, "
          "NormDispIncr 1e-10, UmfPack; one step of at most %d iterations is timed.  Explicit: ExplicitDifference "
          "with a diagonal rotary mass rho h^3/12 (the section has none), %s increments at crdyn's stable dt."
          % (o.get("version"), oi.get("equations"), RHO_INF, OPS_MAX_IT, oe.get("increments", "?")), ""]
    if oi.get("error"):
        L += ["**Implicit: %s** -- the iterations converge only linearly (factor ~0.6 per iteration, the same "
              "with Newmark, a static LoadControl step, the linear ASDShellQ4 and any of UmfPack, SparseSYM, "
              "ProfileSPD, BandGeneral: profiling/README.md), so the time per iteration is comparable (each is "
              "an assembly, a factorization and a solve) but the answer and the time per step are not." % oi["error"], ""]
    L += ["| figure | crdyn | OpenSees | OpenSees / crdyn |", "|---|---|---|---|"]
    if oi.get("newton_s"):
        L.append("| s per Newton iteration | %.3g | %.3g | %.1f |" % (cr_newton, oi["newton_s"], oi["newton_s"] / cr_newton))
    if oe.get("increment_s"):
        ne = p["n"] ** 2
        L.append("| s per explicit increment | %.3g | %.3g | %.1f |" % (cr_inc, oe["increment_s"], oe["increment_s"] / cr_inc))
        L.append("| us per explicit element update | %.3g | %.3g | %.1f |" % (1e6 * cr_inc / ne, 1e6 * oe["increment_s"] / ne,
                                                                         oe["increment_s"] / cr_inc))
    L.append("")
    if "tip_error" in oe:
        tip = o["explicit_tip"]["opensees"]
        L += ["Explicit tip z over the %d OpenSees increments (t <= %.3g s): max difference %.4f%% of OpenSees' "
              "peak %.4g m." % (len(tip) - 1, tip[-1][0], 100 * oe["tip_error"], oe["tip_peak"]), "",
              "| t s | OpenSees uz | crdyn uz |", "|---|---|---|"]
        for t, u in tip[::max(1, len(tip) // 16)]:
            L.append("| %.4g | %.6g | %s |" % (t, u, g(interp(o["explicit_tip"]["crdyn"], t), "%.6g")))
        L.append("")
    elif oe.get("error"):
        L += ["Explicit: %s." % oe["error"], ""]
    return L


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default=None)
    ap.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--plates", default="32,64,128,256")
    ap.add_argument("--cylinders", default="32,64,128")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--peers", default="auto", choices=["auto", "yes", "no"])
    ap.add_argument("--peer-reps", type=int, default=3,
                    help="runs of each timed peer comparison, crdyn and the peer in turn; the fastest of each is kept")
    ap.add_argument("--ops-explicit-t", type=float, default=PEER_EXPL_T,
                    help="end time of the OpenSees explicit run (the whole pulse takes ~5 min here)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report from the last run's results.json (no new measurement)")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.out = os.path.abspath(a.out or os.path.join(a.build, "bench"))
    if a.smoke:
        a.plates, a.cylinders, a.peers = "4,8", "", "no"
    os.makedirs(a.out, exist_ok=True)
    if a.report_only:
        with open(os.path.join(a.out, "results.json")) as f:
            report(a, json.load(f))
        return
    res = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), "machine": machine()}
    res["ceilings"] = ceilings(a)
    res["flops"] = flopcount(a)
    rows = []
    for kind, sizes in (("plate", a.plates), ("cylinder", a.cylinders)):
        for n in [int(x) for x in sizes.split(",") if x]:
            t0 = time.monotonic()
            rows.append(ladder_row(a, kind, n, res["flops"]))
            print("bench: %s %d done in %.1f s" % (kind, n, time.monotonic() - t0), flush=True)
    res["ladder"] = rows
    have_ccx = subprocess.run(["sh", "-c", "command -v ccx"], stdout=subprocess.DEVNULL).returncode == 0
    if a.peers == "yes" or (a.peers == "auto" and have_ccx):
        res["peers"] = peers(a)
    mpi = os.path.join(os.path.dirname(a.build), "build-mpi", "crdyn")
    have_mpirun = subprocess.run(["sh", "-c", "command -v mpirun"], stdout=subprocess.DEVNULL).returncode == 0
    if not a.smoke and os.access(mpi, os.X_OK) and have_mpirun:  # make test-mpi (or make MPI=1) built it
        res["mpi"] = sh(["sh", os.path.join(HERE, "mpi_scaling.sh"), os.path.join(a.build, "crdyn"), mpi, "3"])
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    report(a, res)
    print("bench: wrote %s and %s" % (a.results, os.path.join(a.out, "results.json")))


if __name__ == "__main__":
    main()
