"""CalculiX (ccx) side of the peer comparison: the cantilever plate of
profiling/bench.py as an Abaqus-style deck, run with timestamps on ccx's
progress lines, the tip history read back from the .dat file.

The plate: lx = ly = 1 m, n x n S4 (implicit) or S4R (explicit) shells,
steel E = 2.1e11, nu = 0.3, rho = 7800, h = 0.01, clamped along x = 0, a
z force on the nodes of x = 1 (equal nodal values, as crdyn's "total"
load), ramped by an amplitude.  ccx expands every S4/S4R shell into a
brick (C3D8I / C3D8R) through the thickness: 3 x the nodes and DOFs of the
shell mesh, and a 3D continuum, not a shell theory (see RESULTS.md)."""
import os
import re
import shutil
import subprocess
import time

E, NU, RHO, H = 2.1e11, 0.3, 7800.0, 0.01


def tip_node(n):
    """0-based crdyn id of the mid node of the loaded edge x = 1."""
    return n + (n + 1) * (n // 2)


def write_deck(path, n, mode, dt, t_end, f_total, amp, print_every):
    nn = n + 1
    out = ["*HEADING", "crdyn bench peer: cantilever plate %dx%d (%s)" % (n, n, mode), "*NODE, NSET=NALL"]
    for j in range(nn):
        for i in range(nn):
            out.append("%d, %.12g, %.12g, 0." % (i + nn * j + 1, i / n, j / n))
    etype = "S4" if mode == "implicit" else "S4R"
    out.append("*ELEMENT, TYPE=%s, ELSET=EALL" % etype)
    for j in range(n):
        for i in range(n):
            n0 = i + nn * j
            out.append("%d, %d, %d, %d, %d" % (i + n * j + 1, n0 + 1, n0 + 2, n0 + 2 + nn, n0 + 1 + nn))
    out.append("*NSET, NSET=FIX")
    out += ["%d," % (nn * j + 1) for j in range(nn)]
    out.append("*NSET, NSET=LOADED")
    out += ["%d," % (nn * j + n + 1) for j in range(nn)]
    out.append("*NSET, NSET=TIP")
    out.append("%d," % (tip_node(n) + 1))
    out += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "%g, %g" % (E, NU), "*DENSITY", "%g" % RHO,
            "*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL", "%g" % H,
            "*AMPLITUDE, NAME=PULSE", ", ".join("%.9g, %.9g" % (t, a) for t, a in amp),
            "*BOUNDARY", "FIX, 1, 6",
            "*STEP, NLGEOM, INC=10000000"]
    if mode == "implicit":
        out += ["*DYNAMIC, ALPHA=-0.05, DIRECT", "%.9g, %.9g" % (dt, t_end)]
    else:
        # no DIRECT: ccx takes its Courant increment (with DIRECT and a dt above
        # it, ccx 2.20 selects an increment of 0 and loops until its increment
        # limit)
        out += ["*DYNAMIC, EXPLICIT", "%.9g, %.9g" % (dt, t_end)]
    out += ["*CLOAD, AMPLITUDE=PULSE", "LOADED, 3, %.12g" % (f_total / nn),
            "*NODE PRINT, NSET=TIP, FREQUENCY=%d" % print_every, "U", "*END STEP"]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def parse_dat(path):
    """[(time, uz)] of the TIP node from the .dat file."""
    hist, t = [], None
    with open(path) as f:
        for line in f:
            m = re.search(r"displacements.*time\s+([0-9.Ee+-]+)", line)
            if m:
                t = float(m.group(1))
                continue
            parts = line.split()
            if t is not None and len(parts) == 4:
                try:
                    vals = [float(x) for x in parts]
                except ValueError:
                    continue
                hist.append((t, vals[3]))
                t = None
    return hist


def run(workdir, n, mode, dt, t_end, f_total, amp, print_every=1, threads=1, timeout=1800):
    """Run ccx; returns a dict with the wall time, the time between the
    first and the last progress line of the increments, their count, the
    Newton iterations (implicit) and the tip history."""
    if shutil.which("ccx") is None:
        return {"error": "ccx not installed (profiling/peers/install.sh)"}
    os.makedirs(workdir, exist_ok=True)
    name = "plate%d_%s" % (n, mode)
    write_deck(os.path.join(workdir, name + ".inp"), n, mode, dt, t_end, f_total, amp, print_every)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_THREAD_LIMIT=str(threads),
               OPENBLAS_NUM_THREADS="1", CCX_NPROC_EQUATION_SOLVER=str(threads),
               CCX_NPROC_RESULTS=str(threads), CCX_NPROC_STIFFNESS=str(threads))
    cmd = ["stdbuf", "-oL", "ccx", "-i", name]
    t0 = time.monotonic()
    inc_times, iters, neq, t_end_loop = [], 0, None, None
    log = open(os.path.join(workdir, name + ".log"), "w")
    p = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in p.stdout:
            now = time.monotonic() - t0
            log.write("%.4f %s" % (now, line))
            low = line.lower()
            if re.match(r"\s*increment \d+ attempt", low):
                inc_times.append(now)
            elif re.match(r"\s*iteration \d+", low):
                iters += 1
            elif "job finished" in low:
                t_end_loop = now
            if neq == "next" and re.match(r"\s*\d+\s*$", line):
                neq = int(line)
            elif re.search(r"number of equations\s*$", low):
                neq = "next"
            if time.monotonic() - t0 > timeout:
                p.kill()
                break
        p.wait()
    finally:
        log.close()
    wall = time.monotonic() - t0
    res = {"wall_s": wall, "returncode": p.returncode, "increments": len(inc_times), "newton_iterations": iters,
           "equations": neq if isinstance(neq, int) else None, "elements": n * n}
    if inc_times:
        res["loop_s"] = (t_end_loop or wall) - inc_times[0]  # increments only: no input, expansion, setup
    dat = os.path.join(workdir, name + ".dat")
    res["tip"] = parse_dat(dat) if os.path.exists(dat) else []
    if mode == "explicit":  # ccx 2.20 prints no line per explicit increment
        res["increments"] = len(res["tip"]) * print_every
        m = re.findall(r"SELECTED time increment:\s*([0-9.Ee+-]+)", open(os.path.join(workdir, name + ".log")).read())
        res["dt"] = float(m[0]) if m else None
    return res


if __name__ == "__main__":
    import json
    import sys
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    mode = sys.argv[2] if len(sys.argv) > 2 else "implicit"
    dt = 1e-3 if mode == "implicit" else 5e-7
    r = run("/tmp/ccx_try", n, mode, dt, 5 * dt, 2020.0, [(0, 0), (0.01, 1), (1, 1)])
    print(json.dumps(r, indent=1))
