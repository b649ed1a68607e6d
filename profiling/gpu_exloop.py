#!/usr/bin/env python3
"""The CUDA backend's resident explicit loop with the lean force kernel
against the element kernels it replaced, on a device (make gpu-check,
profiling/gpu_check.sh; docs/cuda.md "Resident explicit loop").

For each size (plates of n x n elements, the ladder's case: 100, 316, 1000
-> 1e4, 1e5, 1e6 elements): one short run for the stable step, then the
same explicit run (steps of 0.9 of it) with

  lean         the default: crd_cu_force_lean with the geometry cache
  elem-split   CRDYN_CUDA_EX_FORCE=elem: the split element kernel, the
               loop's force kernel before the lean one
  elem-thread  CRDYN_CUDA_EX_FORCE=elem CRDYN_CUDA_LAYOUT=thread: one
               thread per element, the fastest of the old ones

and prints one line per run as soon as it ends: explicit forces/s by the
force kernel's CUDA-event time (summary.json timing.element_force), by the
whole loop (elements / explicit step), the step in ms, the ratio to the
lean run, and the history's largest difference from the lean run's
(tests/cli/hist_cmp.py; with FMA contraction the kernels differ in
round-off).  A run whose estimate (the last size's wall time x the
growth) does not fit the deadline is skipped and said so.  Writes
OUT/exloop.json.

usage: gpu_exloop.py --crdyn BIN --out DIR [--seconds 130] [--sizes 100,316,1000]"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_ladder import case  # noqa: E402  (the ladder's plate)

KERNELS = [("lean", {}),
           ("elem-split", {"CRDYN_CUDA_EX_FORCE": "elem"}),
           ("elem-thread", {"CRDYN_CUDA_EX_FORCE": "elem", "CRDYN_CUDA_LAYOUT": "thread"})]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def say(*a):
    print(*a, flush=True)


def run(a, tag, cs, env, timeout):
    """Runs a case on --backend cuda; (summary, wall s) or (None, why)."""
    d = os.path.join(a.out, "exloop", tag)
    os.makedirs(d, exist_ok=True)
    cs["output"]["dir"] = os.path.join(d, "out")
    path = os.path.join(d, "case.json")
    with open(path, "w") as f:
        json.dump(cs, f)
    cmd = [a.crdyn, "run", path, "--quiet", "--timing", "--backend", "cuda", "--threads", str(os.cpu_count())]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=max(5.0, timeout))
    except subprocess.TimeoutExpired:
        return None, "stopped at the deadline"
    if r.returncode:
        return None, "failed (%d): %s" % (r.returncode, r.stdout.strip()[-200:])
    with open(os.path.join(d, "out", "summary.json")) as f:
        return json.load(f), time.time() - t0


def hist_diff(a, n, kernel):
    """hist_cmp.py's line for a run's history against the lean run's."""
    h = lambda k: os.path.join(a.out, "exloop", "%d_%s" % (n, k), "out", "history.csv")  # noqa: E731
    if kernel == "lean" or not os.path.exists(h("lean")):
        return ""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests/cli/hist_cmp.py"), h("lean"), h(kernel),
                        "vs lean"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "; history " + r.stdout.strip()


def size(a, n, deadline, est, rows):
    """The runs of one size; returns the wall time they took (None: skipped)."""
    left = lambda: deadline - time.time()  # noqa: E731
    if est is not None and est > left():
        say("%d x %d: skipped, estimated %.0f s > %.0f s left" % (n, n, est, left()))
        return None
    t0 = time.time()
    s1, w = run(a, "%d_dt" % n, case(n, "explicit", 1e-12, "auto", ""), {}, left())
    if s1 is None:
        say("%d x %d: the stable-step run %s" % (n, n, w))
        return None
    if not rows:  # the figures below are this device's (an emulation's are no GPU's)
        say("device: %s" % s1.get("device", "?"))
    dt = 0.9 * s1["dynamics"]["explicit_stable_dt"]
    steps = int(max(20, min(200, 2e7 / (n * n))))
    lean_rate = None
    for kernel, env in KERNELS:
        s, w = run(a, "%d_%s" % (n, kernel), case(n, "explicit", steps * dt, dt, ""), env, left())
        if s is None:
            say("%d x %d %-11s %s" % (n, n, kernel, w))
            continue
        t, ne = s["timing"], s["counts"]["elements"]
        ef = t["element_force"]["seconds_each"]
        step = t["explicit_step"]["seconds_each"]
        row = {"n": n, "elements": ne, "kernel": kernel, "steps": steps, "device": s.get("device", ""),
               "force_per_s": 1.0 / ef if ef > 0 else None, "loop_forces_per_s": ne / step if step > 0 else None,
               "step_ms": 1e3 * step, "wall_s": w}
        if kernel == "lean":
            lean_rate = row["force_per_s"]
        ratio = (" (lean %.2fx)" % (lean_rate / row["force_per_s"])
                 if lean_rate and row["force_per_s"] and kernel != "lean" else "")
        say("%7d elements %-11s force kernel %.3g forces/s%s, loop %.3g forces/s, step %.3g ms, "
            "%d steps, wall %.1f s%s" % (ne, kernel, row["force_per_s"] or 0, ratio, row["loop_forces_per_s"] or 0,
                                          row["step_ms"], steps, w, hist_diff(a, n, kernel)))
        rows.append(row)
    return time.time() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crdyn", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=130.0)
    p.add_argument("--sizes", default="100,316,1000")
    a = p.parse_args()
    deadline = time.time() + a.seconds
    rows, took, prev = [], None, None
    for n in [int(v) for v in a.sizes.split(",")]:
        est = took * (n / prev) ** 2 * 1.2 if took else None
        w = size(a, n, deadline, est, rows)
        if w is not None:
            took, prev = w, n
        with open(os.path.join(a.out, "exloop.json"), "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
