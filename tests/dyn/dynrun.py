"""What the dynamics test scripts share (adaptive.py, hybrid.py,
sliver.py): TAP lines counted in order, and a case run into a folder with
its history as rows of floats and its summary.json."""
import csv, json, os, subprocess

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases")
_count = [0]


def tap(ok, msg):
    _count[0] += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", _count[0], msg))


def plan():
    """The closing TAP plan line."""
    print("1..%d" % _count[0])


def run(crdyn, tmp, case, tag):
    p = os.path.join(tmp, tag + ".json")
    json.dump(case, open(p, "w"))
    out = os.path.join(tmp, tag)
    subprocess.run([crdyn, "run", p, "--out", out, "--quiet"], check=True)
    rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(os.path.join(out, "history.csv")))]
    return rows, json.load(open(os.path.join(out, "summary.json")))
