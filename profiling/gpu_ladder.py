#!/usr/bin/env python3
"""The GPU benchmark ladder of `make gpu-check` (profiling/gpu_check.sh,
docs/cuda.md): clamped square plates under a tip force (the cases of
bench.py) from about 1e4 to 1e6 elements, each run with --timing on

  cpu  + cholmod   (the reference on the same machine, all its cores)
  cuda + cusolver  (device elements, assembly and factorization; explicit:
                    the resident loop, tree sums)
  cuda-thread + cusolver (the same with one thread per element)
  cuda-hostloop    (explicit only: the host step loop over the device's
                    force evaluation, CRDYN_EXPLICIT_HOST=1, the comparison
                    for the resident loop)
  cuda-serial      (explicit only: the resident loop with serial sums, the
                    host's bits, CRDYN_CUDA_EX_SUMS=serial)
  cuda + cholmod   (device elements and assembly, host factorization)

implicit (2 steps of generalized-alpha) and explicit (20 steps of 0.9 of
the stable step, found by a one-step run, a history row every 10 steps:
the resident loop brings the measures back at rows only).  Figures from summary.json:
element tangent (midpoint kernel) throughput in elements/s and FP64
GFLOP/s by the counted flops (build/bench/flopcount), explicit force
throughput, assembly time, factorization time and GFLOP/s (fastest
refactorization, CHOLMOD's flop count of the ordering), time per implicit
and explicit step.  Bounded by a deadline: a run whose estimate (the
previous size's time x the growth of the mesh, to the power 1.5 for
implicit runs) does not fit is skipped and
said so; every run has a timeout.

usage: gpu_ladder.py --crdyn BIN --out DIR --deadline EPOCH_S [--sizes 100,316,1000]
                     [--threads N] [--flopcount BIN] [--work DIR]
Writes DIR/ladder.json and DIR/ladder.md; prints the table."""
import argparse
import json
import os
import subprocess
import sys
import time

E, NU, RHO, H = 2.1e11, 0.3, 7800.0, 0.01   # profiling/peers/ccx_plate.py
F_TIP = 2020.0
RHO_INF = 0.9
# (label, backend, solver, environment, run the implicit case, run the
# explicit case, explicit step loop); the device first at each size: the
# CPU's large factorizations would use up the time.  cuda: the element
# split over a block (the default layout); cuda-thread: one thread per
# element; cuda-thread0: thread 0 of a block per element, the layout before
# the split (docs/cuda.md), implicit only.
CONFIGS = [("cuda", "cuda", "cusolver", {}, True, True, "resident"),
           ("cuda-thread", "cuda", "cusolver", {"CRDYN_CUDA_LAYOUT": "thread"}, True, True, "resident"),
           ("cuda-thread0", "cuda", "cusolver", {"CRDYN_CUDA_LAYOUT": "thread0"}, True, False, "-"),
           ("cuda-hostloop", "cuda", "cusolver", {"CRDYN_EXPLICIT_HOST": "1"}, False, True, "host"),
           ("cuda-serial", "cuda", "cusolver", {"CRDYN_CUDA_EX_SUMS": "serial"}, False, True, "resident serial"),
           ("cuda", "cuda", "cholmod", {}, True, False, "-"),
           ("cpu", "cpu", "cholmod", {}, True, True, "host")]


def case(n, integ, t_end, dt, outdir):
    st = {"integrator": integ, "t_end": t_end, "dt": dt}
    amp = [[0, 0], [0.01, 1], [1, 1]] if integ == "implicit" else [[0, 0], [1e-4, 1], [1, 1]]
    if integ == "implicit":
        st.update(rho_inf=RHO_INF, tolerance=1e-8)
    return {"format": 1, "title": "gpu ladder plate %dx%d %s" % (n, n, integ),
            "mesh": {"generate": {"type": "rectangle", "lx": 1, "ly": 1, "nx": n, "ny": n}},
            "sections": [{"elements": "all", "E": E, "nu": NU, "rho": RHO, "thickness": H}],
            "supports": [{"set": "x0", "fix": "all"}],
            "loads": [{"set": "x1", "force": [0, 0, F_TIP], "total": True, "amplitude": amp}],
            "analysis": {"type": "dynamic", "stages": [st]},
            "output": {"dir": outdir, "history_every": 1 if integ == "implicit" else 10, "vtk_every": 0}}


class Ladder:
    def __init__(self, a):
        self.a = a
        self.rows, self.notes, self.took = [], [], {}

    def left(self):
        return self.a.deadline - time.time()

    def run(self, name, cs, backend, solver, est, extra_env=None):
        """Run a case; None (with a note) when it does not fit or fails."""
        tag = "%s %s+%s%s" % (name, backend, solver, "".join(" %s=%s" % kv for kv in (extra_env or {}).items()))
        if est is not None and est > self.left() - 5:
            self.notes.append("%s: skipped, estimated %.0f s > %.0f s left" % (tag, est, self.left()))
            return None
        d = os.path.join(self.a.work, tag.replace(" ", "_").replace("+", "_").replace("=", "_"))
        os.makedirs(d, exist_ok=True)
        cs["output"]["dir"] = os.path.join(d, "out")
        path = os.path.join(d, "case.json")
        with open(path, "w") as f:
            json.dump(cs, f)
        cmd = [self.a.crdyn, "run", path, "--quiet", "--timing", "--threads", str(self.a.threads),
               "--backend", backend, "--solver", solver]
        env = dict(os.environ, OMP_NUM_THREADS=str(self.a.threads), OPENBLAS_NUM_THREADS="1", **(extra_env or {}))
        t0 = time.time()
        try:
            r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=max(5.0, self.left()))
        except subprocess.TimeoutExpired:
            self.notes.append("%s: stopped at the deadline" % tag)
            return None
        wall = time.time() - t0
        if r.returncode:
            self.notes.append("%s: failed (%d): %s" % (tag, r.returncode, r.stdout.strip()[-300:]))
            return None
        with open(os.path.join(d, "out", "summary.json")) as f:
            s = json.load(f)
        s["process_wall_s"] = wall
        return s

    def size(self, n, prev_n, fl):
        grow = (n / prev_n) ** 2 if prev_n else None
        for label, backend, solver, xenv, implicit, explicit, loop in CONFIGS:
            key = (label, solver)
            # implicit runs grow like the factorization (nested dissection in 2D: elements^1.5)
            est = lambda k: (self.took[k] * grow ** (1.5 if k[2] == "i" else 1.0) * 1.2  # noqa: E731
                             if grow and k in self.took else None)
            row = {"n": n, "backend": label, "solver": solver}
            si = self.run("plate%d_implicit" % n, case(n, "implicit", 2e-3, 1e-3, ""), backend, solver,
                          est(key + ("i",)), xenv) if implicit else None
            if si:
                self.took[key + ("i",)] = si["process_wall_s"]
                t = si["timing"]
                row.update(elements=si["counts"]["elements"], dofs=si["counts"]["equations"],
                           tangent_elem_per_s=1.0 / t["element_implicit"]["seconds_each"],
                           assembly_s=t["assembly"]["seconds_each"], analyse_s=t["analyse"]["seconds_each"],
                           factor_first_s=t["factorize_first"]["seconds"], refactor_s=t["refactorize_min_s"],
                           refactor_gflops=t["refactorize_gflops_per_s"], factor_flops=t["factor_flops"],
                           solve_s=t["solve"]["seconds_each"], implicit_step_s=t["implicit_step"]["seconds_each"],
                           implicit_wall_s=si["process_wall_s"], device=si.get("device", ""))
                fl_tan = fl["implicit"]["flops"] + fl["implicit_inertia_and_packing"]["flops"] if fl else 0
                row["tangent_gflops"] = row["tangent_elem_per_s"] * fl_tan * 1e-9
            if explicit:  # explicit needs no solver: once per backend and layout
                s1 = self.run("plate%d_dt" % n, case(n, "explicit", 1e-12, "auto", ""), backend, solver,
                              est(key + ("d",)), xenv)
                if s1:
                    self.took[key + ("d",)] = s1["process_wall_s"]
                    dts = s1["dynamics"]["explicit_stable_dt"]
                    se = self.run("plate%d_explicit" % n, case(n, "explicit", 20 * 0.9 * dts, 0.9 * dts, ""),
                                  backend, solver, est(key + ("e",)), xenv)
                    if se:
                        self.took[key + ("e",)] = se["process_wall_s"]
                        t = se["timing"]
                        ef = t["element_force"]["seconds_each"]
                        row.update(elements=se["counts"]["elements"], explicit_loop=loop,
                                   force_elem_per_s=1.0 / ef if ef > 0 else None,
                                   explicit_step_s=t["explicit_step"]["seconds_each"],
                                   explicit_assembly_s=t["assembly"]["seconds_each"],
                                   explicit_wall_s=se["process_wall_s"], device=se.get("device", ""))
                        if fl and row["force_elem_per_s"]:
                            row["force_gflops"] = row["force_elem_per_s"] * fl["force"]["flops"] * 1e-9
            if len(row) > 3:
                self.rows.append(row)


def g(r, k, f="%.3g"):
    return f % r[k] if k in r and r[k] is not None else "-"


def table(rows):
    out = ["| elements | backend+solver | tangent elem/s | tangent GFLOP/s | force elem/s | assembly ms | "
           "refactor s | refactor GFLOP/s | implicit step s | explicit loop | explicit step ms |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        asm = r.get("assembly_s", r.get("explicit_assembly_s"))
        out.append("| %s | %s+%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g(r, "elements", "%d"), r["backend"], r["solver"], g(r, "tangent_elem_per_s"), g(r, "tangent_gflops"),
            g(r, "force_elem_per_s"), "%.3g" % (1e3 * asm) if asm else "-", g(r, "refactor_s"),
            g(r, "refactor_gflops"), g(r, "implicit_step_s"), r.get("explicit_loop", "-"),
            "%.3g" % (1e3 * r["explicit_step_s"]) if "explicit_step_s" in r else "-"))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crdyn", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, required=True)
    ap.add_argument("--sizes", default="100,316,1000")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--flopcount", default="")
    ap.add_argument("--work", default="", help="where the runs go (default: a temporary folder, not --out: "
                    "checkpoints of the large meshes would not come back from the GPU machine)")
    a = ap.parse_args()
    if not a.work:
        import tempfile
        a.work = tempfile.mkdtemp(prefix="crdyn-gpu-ladder-")
    os.makedirs(a.out, exist_ok=True)
    fl = None
    if a.flopcount and os.access(a.flopcount, os.X_OK):
        w = 1.0 - RHO_INF / (RHO_INF + 1.0)
        fl = json.loads(subprocess.run([a.flopcount, "%.9g" % w], stdout=subprocess.PIPE, text=True).stdout)
    lad = Ladder(a)
    prev = None
    for n in [int(x) for x in a.sizes.split(",")]:
        if lad.left() < 10:
            lad.notes.append("plate %dx%d: not started, deadline" % (n, n))
            continue
        lad.size(n, prev, fl)
        prev = n
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "threads": a.threads,
           "rows": lad.rows, "notes": lad.notes, "flops_per_element": fl}
    with open(os.path.join(a.out, "ladder.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = table(lad.rows)
    with open(os.path.join(a.out, "ladder.md"), "w") as f:
        f.write("GPU ladder, %s, %d CPU threads\n\n%s\n\n%s\n" % (res["date"], a.threads, md,
                                                                 "\n".join("- " + x for x in lad.notes)))
    for x in lad.notes:
        print("note:", x)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
