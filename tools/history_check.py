#!/usr/bin/env python3
"""Conservation and accuracy figures of a crdyn history.csv.

  history_check.py HISTORY.csv [--from T] [--to T]

Prints, over the rows with time in [from, to]: the largest change of the
total energy relative to the kinetic + strain energy at the first such row,
and the largest change of L and J relative to their norms there; the mean
and largest Newton iterations per step; the largest angle the probes'
normals turned from their initial direction.  With --json, one JSON object.
"""
import csv, json, math, sys


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    return rows


def figures(rows, t0=None, t1=None):
    sel = [r for r in rows if (t0 is None or float(r["time"]) >= t0 - 1e-9) and
           (t1 is None or float(r["time"]) <= t1 + 1e-9)]
    ref = sel[0]
    e_scale = float(ref["kinetic"]) + float(ref["strain"])
    E0 = float(ref["total"])
    L0 = [float(ref[k]) for k in ("Lx", "Ly", "Lz")]
    J0 = [float(ref[k]) for k in ("Jx", "Jy", "Jz")]
    nL = math.sqrt(sum(x * x for x in L0)) or 1.0
    nJ = math.sqrt(sum(x * x for x in J0)) or 1.0
    dE = max(abs(float(r["total"]) - E0) for r in sel) / (e_scale or 1.0)
    dL = max(math.dist([float(r[k]) for k in ("Lx", "Ly", "Lz")], L0) for r in sel) / nL
    dJ = max(math.dist([float(r[k]) for k in ("Jx", "Jy", "Jz")], J0) for r in sel) / nJ
    its = [int(r["iterations"]) for r in rows[1:]]
    probes = sorted({k[:-3] for k in rows[0] if k.endswith(".px")})
    turn = 0.0
    for p in probes:
        n0 = [float(rows[0][p + s]) for s in (".px", ".py", ".pz")]
        for r in rows:
            n = [float(r[p + s]) for s in (".px", ".py", ".pz")]
            c = max(-1.0, min(1.0, sum(a * b for a, b in zip(n0, n))))
            turn = max(turn, math.degrees(math.acos(c)))
    # monotonic energy decay: the largest step-to-step growth of total
    growth = max([float(sel[i + 1]["total"]) - float(sel[i]["total"]) for i in range(len(sel) - 1)] or [0.0])
    return {"t_from": float(ref["time"]), "rows": len(sel), "energy_ref": e_scale, "E": E0, "L": L0, "J": J0,
            "dE_rel": dE, "dL_rel": dL, "dJ_rel": dJ, "max_energy_growth_rel": growth / (e_scale or 1.0),
            "newton_mean": sum(its) / len(its) if its else 0.0, "newton_max": max(its) if its else 0,
            "max_normal_turn_deg": turn}


def main(argv):
    args = argv[1:]
    t0 = t1 = None
    js = False
    if "--json" in args:
        js = True
        args.remove("--json")
    if "--from" in args:
        i = args.index("--from"); t0 = float(args[i + 1]); del args[i:i + 2]
    if "--to" in args:
        i = args.index("--to"); t1 = float(args[i + 1]); del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    f = figures(load(args[0]), t0, t1)
    if js:
        print(json.dumps(f))
    else:
        for k, v in f.items():
            print(f"{k:24s} {v}")


if __name__ == "__main__":
    main(sys.argv)
