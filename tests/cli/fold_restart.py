#!/usr/bin/env python3
"""Checkpoint and restart of a shell with intersection nodes
(docs/checkpoint.md, section "triads.state"; src/host/analysis/dyn_checkpoint.c).

The open box of fold_dynamics.py (20 triad nodes), pushed by a pulse of
F = 2 over t_p = 0.02 at two corners, then free, in three runs:
  ex  explicit, dt "auto", to t = 0.05
  im  implicit, rho_inf = 1, dt = 0.01, to t = 0.5
  tw  explicit to t = 0.03, then implicit (rho_inf = 0.8) to t = 0.3
Each is stopped at a random step (test hook CRDYN_TEST_SIGINT_STEP; for tw
also in the implicit stage and at the stage boundary) and restarted: its
history.csv must be byte for byte the uninterrupted run's.  Then the
refusals: a checkpoint without "triads.state", one whose section has the
wrong size, one with a chart that is not one (the container's checksum
recomputed, so only the section is wrong).

    python3 tests/cli/fold_restart.py [--expect-fail] [--seed S]

--expect-fail: a broken build (CRDYN_TEST_TRIAD_CKPT=no_rates: the triads'
rates not restored): some restart must then differ.  $CRDYN names the
binary (default ./build/crdyn).  Standard library only; TAP."""

import argparse
import filecmp
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold_dynamics as fd  # noqa: E402  (the box)

F, TP = 2.0, 0.02


def box(stages):
    c = fd.box()
    amp = [[0, 0], [TP / 2, 1], [TP, 0]]
    for ld in c["loads"]:
        ld["force"] = [x / fd.F * F for x in ld["force"]]
        ld["amplitude"] = amp
    c["analysis"] = {"type": "dynamic", "stages": stages}
    return c


CASES = {
    "ex": [{"integrator": "explicit", "t_end": 0.05, "dt": "auto"}],
    "im": [{"integrator": "implicit", "t_end": 0.5, "dt": 0.01, "rho_inf": 1.0, "tolerance": 1e-10}],
    "tw": [{"integrator": "explicit", "t_end": 0.03, "dt": "auto"},
           {"integrator": "implicit", "t_end": 0.3, "dt": 0.01, "rho_inf": 0.8, "tolerance": 1e-10}],
}


def run(crdyn, case, out, env_extra=None, restart=None):
    env = dict(os.environ, OMP_THREAD_LIMIT="2", OPENBLAS_NUM_THREADS="1")
    env.update(env_extra or {})
    cmd = [crdyn, "run", case, "--out", out, "--quiet"] + (["--restart", restart] if restart else [])
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return r.returncode, (r.stderr.strip().splitlines() or [""])[-1]


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def sections(raw):
    """[(name, payload)] of a checkpoint (docs/checkpoint.md, "Container")."""
    out, o = [], 32
    while o < len(raw):
        name = raw[o:o + 16].rstrip(b"\0").decode()
        n = struct.unpack("<Q", raw[o + 16:o + 24])[0]
        out.append((name, raw[o + 24:o + 24 + n]))
        o += 24 + n + (-n % 8)
        if name == "end":
            break
    return out


def rewrite(src, dst, edit):
    """The checkpoint src with its sections passed through edit, the
    checksum of the end section recomputed."""
    raw = open(src, "rb").read()
    body = bytearray(raw[:32])
    for name, pay in edit([s for s in sections(raw) if s[0] != "end"]):
        body += name.encode().ljust(16, b"\0") + struct.pack("<Q", len(pay)) + pay + b"\0" * (-len(pay) % 8)
    body += b"end".ljust(16, b"\0") + struct.pack("<Q", 8) + struct.pack("<Q", fnv1a(body))
    open(dst, "wb").write(bytes(body))


def bad_chart(secs):
    out = []
    for name, pay in secs:
        if name == "triads.state":
            v = list(struct.unpack("<%dd" % (len(pay) // 8), pay))
            v[9] = 5.0  # triad 0: l = 5
            pay = struct.pack("<%dd" % len(v), *v)
        out.append((name, pay))
    return out


BROKEN = [
    ("no section", lambda s: [x for x in s if x[0] != "triads.state"], "no section 'triads.state'"),
    ("wrong size", lambda s: [(n, p[:-8] if n == "triads.state" else p) for n, p in s], "wrong sizes"),
    ("not a chart", bad_chart, "is not one"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-fail", action="store_true")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("RESTART_SEED", "0")) or None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 1 << 31)
    print("# RESTART_SEED=%d" % seed)
    rnd = random.Random(seed)
    crdyn = os.environ.get("CRDYN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "crdyn"))
    hook = {"CRDYN_TEST_TRIAD_CKPT": "no_rates"} if a.expect_fail else {}
    n, same_all = 0, True
    with tempfile.TemporaryDirectory(prefix="crdyn-foldrestart.") as tmp:
        refs = {}
        for tag, stages in CASES.items():
            case = os.path.join(tmp, tag + ".json")
            with open(case, "w") as f:
                json.dump(box(stages), f)
            rc, err = run(crdyn, case, os.path.join(tmp, tag + "_ref"))
            with open(os.path.join(tmp, tag + "_ref", "history.csv")) as f:
                rows = [line.split(",") for line in f.read().splitlines()[1:]]
            steps = [int(r[0]) for r in rows if r[0].isdigit()]
            t_of = {int(r[0]): float(r[1]) for r in rows if r[0].isdigit()}
            refs[tag] = (case, rc, err, max(steps) if steps else 0, t_of)
        stops = []
        for tag in ("ex", "im"):
            stops.append((tag, rnd.randint(1, refs[tag][3] - 1)))
        tw = refs["tw"]
        nex = max(k for k, t in tw[4].items() if t <= 0.03 * (1 + 1e-12))
        stops += [("tw", rnd.randint(1, nex - 1)), ("tw", nex), ("tw", rnd.randint(nex + 1, tw[3] - 1))]
        for tag, k in stops:
            case, rc0, err0, nsteps, _ = refs[tag]
            out = os.path.join(tmp, "%s_%d" % (tag, k))
            rc1, msg1 = run(crdyn, case, out, {"CRDYN_TEST_SIGINT_STEP": str(k)})
            rc2, msg2 = run(crdyn, case, out, hook, os.path.join(out, "checkpoint.crd"))
            same = rc0 == 0 and rc1 == 130 and rc2 == 0 and filecmp.cmp(
                os.path.join(tmp, tag + "_ref", "history.csv"), os.path.join(out, "history.csv"), shallow=False)
            same_all = same_all and same
            n += 1
            if not a.expect_fail:
                why = "" if same else " (%s; %s; %s)" % (err0, msg1, msg2)
                print("%sok %d - open box %s (%d steps): stopped at step %d, restarted: history.csv byte-identical "
                      "to the uninterrupted run's%s" % ("" if same else "not ", n, tag, nsteps, k,
                                                       why.replace(tmp, "TMP")[:400]))
        if a.expect_fail:
            print("%sok 1 - the triads' rates not restored: some restart differs from the uninterrupted run"
                  % ("not " if same_all else ""))
            print("1..1")
            return 0 if not same_all else 1
        ck = os.path.join(tmp, "tw_%d" % stops[-1][1], "checkpoint.crd")
        for what, edit, pattern in BROKEN:
            out = os.path.join(tmp, "bad_" + what.replace(" ", "_"))
            shutil.copytree(os.path.dirname(ck), out)  # the run folder whose history the checkpoint continues
            bad = os.path.join(out, "checkpoint.crd")
            rewrite(ck, bad, edit)
            rc, msg = run(crdyn, refs["tw"][0], out, restart=bad)
            ok = rc not in (0, 130) and pattern in msg
            n += 1
            print("%sok %d - a checkpoint with %s in its triads' state is refused (status %d): %s"
                  % ("" if ok else "not ", n, what, rc, msg.replace(tmp, "TMP")[:240]))
            same_all = same_all and ok
        # the same rewrite with nothing changed is taken (the checksum is recomputed right)
        rewrite(ck, os.path.join(tmp, "same.crd"), lambda s: s)
        ok = open(ck, "rb").read() == open(os.path.join(tmp, "same.crd"), "rb").read()
        n += 1
        print("%sok %d - the test's checkpoint rewriter reproduces an untouched checkpoint byte for byte"
              % ("" if ok else "not ", n))
        same_all = same_all and ok
    print("1..%d" % n)
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main())
