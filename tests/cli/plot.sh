#!/bin/sh
# tools/crdyn_plot.py and `crdyn plot`: plots of a run.  Synthetic histories
# (made with awk) in a temporary folder: a damped oscillation with one probe
# P and one rigid body B whose load ramps up over the first 20 steps, the
# same with a last column "stage" (stages 1-3: a vertical line where each
# stage starts), and a statics one (time 0 everywhere: no momentum plot);
# every expected PNG must be written and be a PNG, and a malformed header, a
# missing file, an empty file and a header without rows must each fail with
# a message on stderr and write nothing.  Then real runs of $CRDYN: a modal
# run (modes.png: frequency against mode number, from modes.csv, the
# rigid-body modes apart, and no history plots; result.pvd's time values are
# modes.csv's frequencies), a static run (probes.png: the probe's
# displacements against the load factor, energies against load factor, no
# momentum plot) and a dynamic one (today's plots).  What a PNG shows is read
# from its "Description" text chunk, which the tool writes from the drawn
# curves (their points and the ranges of x and y).
# POSIX sh, run from the repository root; prints TAP.  $PYTHON: the
# interpreter (default: the first of python3, /usr/bin/python3 that can
# import matplotlib).  $CRDYN: the binary (exported by tests/run.sh;
# default build/crdyn).
here=$(cd "$(dirname "$0")/../.." && pwd)
TOOL="$here/tools/crdyn_plot.py"
CRDYN=${CRDYN:-$here/build/crdyn}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-plot.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
export MPLCONFIGDIR="$T/mpl"
n=0; nfail=0

ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $1"; }
check()  { what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
png()    { [ -f "$1" ] && [ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ]; }
show()   { sed 's/^/# /' "$1"; }

# -- interpreter -----------------------------------------------------------
PY=
for c in ${PYTHON:-python3 /usr/bin/python3}; do
  if "$c" -c 'import matplotlib, numpy' >/dev/null 2>&1; then PY=$c; break; fi
done
if [ -z "$PY" ]; then
  not_ok "matplotlib available (tried: ${PYTHON:-python3 /usr/bin/python3}; Debian: apt-get install python3-matplotlib)"
  echo "1..$n"
  exit 1
fi
ok "matplotlib available ($PY)"
check "tools/crdyn_plot.py is executable" test -x "$TOOL"

# desc PNG: the PNG's "Description" text chunk (what the tool drew)
desc() {
  [ -f "$1" ] || return 0
  "$PY" - "$1" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
i = 8
while i + 8 <= len(d):
    n, = struct.unpack(">I", d[i:i + 4])
    if d[i + 4:i + 8] == b"tEXt":
        k, v = d[i + 8:i + 8 + n].split(b"\0", 1)
        if k == b"Description":
            sys.stdout.write(v.decode("latin-1") + "\n")
    i += 12 + n
PYEOF
}

FIXED=step,time,load_factor,iterations,residual,kinetic,strain,external_work,total,Lx,Ly,Lz,Jx,Jy,Jz

# -- dynamics: damped oscillation, probe P, body B ---------------------------
mkdir -p "$T/dyn"
awk -v fixed="$FIXED" 'BEGIN {
  OFS = ","; pi = atan2(0, -1); w = 2 * pi; z = 0.03; wd = w * sqrt(1 - z * z); dt = 0.05; N = 120
  print fixed ",P.ux,P.uy,P.uz,P.px,P.py,P.pz,B.x,B.y,B.z,B.qw,B.qx,B.qy,B.qz,B.vx,B.vy,B.vz,B.wx,B.wy,B.wz"
  for (i = 0; i <= N; i++) {
    t = i * dt
    W = i < 20 ? 0.5 * (1 - cos(pi * i / 20)) : 1          # load ends at row 20
    A = i < 20 ? 1 : exp(-z * w * (t - 1))
    E = W * (1 - 1e-4 * (i < 20 ? 0 : t - 1))              # a small loss of total energy
    s = sin(wd * t); c = cos(wd * t)
    it = i ? 3 + i % 3 : 0; res = i ? 10 ^ (-8 - (i % 5) * 0.5) : 0
    uz = 0.1 * A * W * s; th = 0.5 * uz
    printf "%d,%.17g,1,%d,%.17g,%.17g,%.17g,%.17g,%.17g", i, t, it, res, E * s * s, E * c * c, W, E - W
    printf ",%.17g,0,%.17g,0,0,%.17g", 0.5 * W, 1e-3 * W + 1e-15 * i, 2 * W - 1e-12 * i
    printf ",%.17g,0,%.17g,0,%.17g,%.17g", 0.01 * t, uz, -sin(th), cos(th)
    ph = 0.5 * t
    printf ",%.17g,0,%.17g,%.17g,0,0,%.17g,0.2,0,%.17g,0,0,0.5\n", 1 + 0.2 * t, uz, cos(ph / 2), sin(ph / 2), 0.1 * A * W * wd * c
  }
}' >"$T/dyn/history.csv"

"$PY" "$TOOL" "$T/dyn" >"$T/dyn.out" 2>"$T/dyn.err"; rc=$?
if [ $rc -eq 0 ]; then ok "dynamics history (output folder argument): exit 0"
else not_ok "dynamics history (output folder argument): exit 0 (got $rc)"; show "$T/dyn.err"; fi
for f in energy momentum probes bodies newton steps; do
  check "dynamics: $f.png written and a PNG" png "$T/dyn/$f.png"
done
nw=$(grep -c '^wrote ' "$T/dyn.out")
check "dynamics: one 'wrote' line per file (6, got $nw)" test "$nw" -eq 6
desc "$T/dyn/steps.png" >"$T/steps.desc"
check "dynamics: steps.png shows the history's constant step 0.05 over its 120 steps" \
  grep -q "step length: 0.05 to 0.05 over 120 steps" "$T/steps.desc"
check "dynamics: reference row 20 (external work constant from there on) reported" \
  grep -q '^reference row for drift: 20 ' "$T/dyn.out"
left=$(ls -A "$T/dyn" | grep -v -e '^history\.csv$' -e '\.png$')
check "dynamics: no temporary or other files left in the output folder" test -z "$left"
desc "$T/dyn/energy.png" >"$T/dyn.desc"
check "dynamics without a stage column: no stage boundary drawn or printed" \
  sh -c '! grep -q stage "$1" && ! grep -q "^stage" "$2" && grep -q "^panel 1: .*x: time" "$1"' - "$T/dyn.desc" "$T/dyn.out"

# -- dynamics with a last column "stage": 1 up to row 40, 2 to row 80, then 3
mkdir -p "$T/stg"
awk -F, -v OFS=, 'NR == 1 { print $0, "stage"; next }
  { print $0, ($1 <= 40 ? 1 : ($1 <= 80 ? 2 : 3)) }' "$T/dyn/history.csv" >"$T/stg/history.csv"
"$PY" "$TOOL" "$T/stg" >"$T/stg.out" 2>"$T/stg.err"; rc=$?
if [ $rc -eq 0 ]; then ok "staged dynamics history: exit 0"
else not_ok "staged dynamics history: exit 0 (got $rc)"; show "$T/stg.err"; fi
check "staged: the stage column is not reported as an unknown column" sh -c '! grep -q stage "$1"' - "$T/stg.err"
check "staged: boundaries printed (stage 2 from time 2, stage 3 from time 4)" \
  grep -q '^stage boundaries: stage 2 from time 2, stage 3 from time 4$' "$T/stg.out"
for f in energy momentum probes bodies; do
  desc "$T/stg/$f.png" >"$T/stg.desc"
  np=$(grep -c '^panel' "$T/stg.desc")
  nv2=$(grep -c "^  vertical line 'stage 2 starts' at x = 2\$" "$T/stg.desc")
  nv3=$(grep -c "^  vertical line 'stage 3 starts' at x = 4\$" "$T/stg.desc")
  check "staged: $f.png marks both stage starts (t = 2, t = 4) in each of its $np panels" \
    test "$np" -gt 0 -a "$nv2" -eq "$np" -a "$nv3" -eq "$np"
done
desc "$T/stg/newton.png" >"$T/stg.desc"
check "staged: newton.png (against step) marks the stage starts between steps 40/41 and 80/81" \
  sh -c 'grep -q "^  vertical line .stage 2 starts. at x = 40.5\$" "$1" && grep -q "^  vertical line .stage 3 starts. at x = 80.5\$" "$1"' - "$T/stg.desc"

# -- statics: time 0 everywhere, no probes or bodies -----------------------
mkdir -p "$T/sta"
awk -v fixed="$FIXED" 'BEGIN {
  print fixed
  for (i = 0; i <= 10; i++) {
    lf = i / 10
    printf "%d,0,%.17g,%d,%.17g,0,%.17g,%.17g,%.17g,0,0,0,0,0,0\n", i, lf, i ? 4 : 0, i ? 1e-11 : 0, 0.5 * lf * lf, lf * lf, -0.5 * lf * lf
  }
}' >"$T/sta/history.csv"
"$PY" "$TOOL" "$T/sta/history.csv" --out "$T/sta_plots" --title "statics test" >"$T/sta.out" 2>"$T/sta.err"; rc=$?
if [ $rc -eq 0 ]; then ok "statics history (file argument, --out, --title): exit 0"
else not_ok "statics history (file argument, --out, --title): exit 0 (got $rc)"; show "$T/sta.err"; fi
for f in energy newton; do
  check "statics: $f.png written to --out and a PNG" png "$T/sta_plots/$f.png"
done
check "statics: plotted against load factor" grep -q 'abscissa: load factor' "$T/sta.out"
check "statics: no probes.png or bodies.png without probe or body columns" \
  test ! -e "$T/sta_plots/probes.png" -a ! -e "$T/sta_plots/bodies.png"
check "statics: no momentum.png (the momenta of a static run are zero)" test ! -e "$T/sta_plots/momentum.png"
desc "$T/sta_plots/energy.png" >"$T/sta.desc"
check "statics: energy.png shows strain energy and external work against the load factor (0 .. 1)" \
  grep -q "^  curve 'external work': 11 points, x 0 .. 1, y 0 .. 1\$" "$T/sta.desc"

# -- bad input: non-zero exit, a message on stderr, nothing written ---------
bad() { # $1: what, $2: path argument
  "$PY" "$TOOL" "$2" --out "$T/bad_plots" >"$T/bad.out" 2>"$T/bad.err"; rc=$?
  if [ $rc -ne 0 ] && [ -s "$T/bad.err" ] && [ ! -e "$T/bad_plots" ]; then
    ok "$1: exit $rc, message on stderr, nothing written"; [ -n "$VERBOSE" ] && show "$T/bad.err"
  else
    not_ok "$1: non-zero exit ($rc), message on stderr, nothing written"; show "$T/bad.err"
  fi
  rm -rf "$T/bad_plots"
}
mkdir -p "$T/badhdr"
{ echo "step,time,load,iterations,residual,kinetic,strain,external_work,total,Lx,Ly,Lz,Jx,Jy,Jz"
  echo "0,0,1,0,0,0,0,0,0,0,0,0,0,0,0"; } >"$T/badhdr/history.csv"
bad "malformed header" "$T/badhdr/history.csv"
bad "missing file" "$T/nothing_here/history.csv"
: >"$T/empty.csv"
bad "empty file" "$T/empty.csv"
echo "$FIXED" >"$T/header_only.csv"
bad "header without data rows" "$T/header_only.csv"

# -- real runs through `crdyn plot` ------------------------------------------
export CRDYN_PLOT="$TOOL"
if [ ! -x "$CRDYN" ]; then
  not_ok "crdyn binary $CRDYN is executable (build it with make)"
  echo "1..$n"
  exit 1
fi
crun() { # $1: case name, $2: folder; runs cases/$1.json, then crdyn plot
  "$CRDYN" run "$here/cases/$1.json" --out "$T/$2" --quiet >"$T/$2.run" 2>&1 &&
    "$CRDYN" plot "$T/$2" >"$T/$2.out" 2>"$T/$2.err"; rc=$?
  if [ $rc -eq 0 ]; then ok "$1: crdyn run and crdyn plot exit 0"
  else not_ok "$1: crdyn run and crdyn plot exit 0 (got $rc)"; show "$T/$2.run"; show "$T/$2.err"; fi
}

# modal: the free plate (6 rigid-body modes, then elastic ones)
crun plate_free_modal modal
check "modal: modes.png written and a PNG" png "$T/modal/modes.png"
check "modal: no history plots (energy, momentum, newton) for a modal run" \
  test ! -e "$T/modal/energy.png" -a ! -e "$T/modal/momentum.png" -a ! -e "$T/modal/newton.png"
desc "$T/modal/modes.png" >"$T/modal.desc"
# modes.csv's elastic and rigid-body modes against the curves of modes.png
"$PY" - "$T/modal/modes.csv" "$T/modal.desc" "$T/modal/summary.json" >"$T/modal.cmp" <<'PYEOF'
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
f = [float(r["frequency"]) for r in rows]
k = [int(r["mode"]) for r in rows]
el = [(m, x) for m, x in zip(k, f) if x != 0]
rg = [m for m, x in zip(k, f) if x == 0]
d = open(sys.argv[2]).read()
nr = json.load(open(sys.argv[3]))["modal"]["rigid_body_modes"]
def curve(name):
    m = re.search(r"^  curve '%s[^']*': (\d+) points, x (\S+) \.\. (\S+), y (\S+) \.\. (\S+)$" % name, d, re.M)
    return [float(v) for v in m.groups()] if m else None
ok = True
c = curve("elastic modes")
want = [len(el), min(m for m, _ in el), max(m for m, _ in el), min(x for _, x in el), max(x for _, x in el)]
if c is None or c[:3] != want[:3] or any(abs(a - b) > 1e-8 * abs(b) for a, b in zip(c[3:], want[3:])):
    ok = False
print("# elastic: drawn %s, modes.csv %s" % (c, want))
c = curve("rigid-body modes")
want = [len(rg), min(rg), max(rg), 0.0, 0.0] if rg else None
if c != want or len(rg) != nr or nr == 0:
    ok = False
print("# rigid-body: drawn %s, modes.csv %s, summary.json %d" % (c, want, nr))
print("# x: mode number" if "x: mode number" in d else "# x axis is not the mode number")
sys.exit(0 if ok and "x: mode number; y: frequency" in d else 1)
PYEOF
rc=$?; cat "$T/modal.cmp"
check "modal: modes.png plots frequency against mode number as in modes.csv, the rigid-body modes apart" test $rc -eq 0

# the modal PVD: one frame per mode, in order, its time value the mode's frequency
"$PY" - "$T/modal/modes.csv" "$T/modal/result.pvd" >"$T/pvd.cmp" <<'PYEOF'
import csv, sys, xml.etree.ElementTree as ET
f = [float(r["frequency"]) for r in csv.DictReader(open(sys.argv[1]))]
ds = ET.parse(sys.argv[2]).getroot().iter("DataSet")
got = [(float(e.get("timestep")), e.get("file")) for e in ds]
want = [(x, "frames/mode_%03d.vtu" % (i + 1)) for i, x in enumerate(f)]
print("# pvd times %s" % [t for t, _ in got])
print("# modes.csv frequencies %s" % f)
sys.exit(0 if got == want and any(x > 0 for x in f) else 1)
PYEOF
rc=$?; cat "$T/pvd.cmp"
check "modal: result.pvd's time values are modes.csv's frequencies (frames/mode_NNN.vtu in order)" test $rc -eq 0

# static: the Sze 3.1 cantilever (probe tip), 20 load steps
crun sze31_cantilever_shear static
check "static: probes.png written and a PNG" png "$T/static/probes.png"
check "static: no momentum.png (the momenta of a static run are zero)" test ! -e "$T/static/momentum.png"
desc "$T/static/probes.png" >"$T/static.desc"
desc "$T/static/energy.png" >"$T/static_e.desc"
"$PY" - "$T/static/history.csv" "$T/static.desc" "$T/static_e.desc" >"$T/static.cmp" <<'PYEOF'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lf = [float(r["load_factor"]) for r in rows]
d, de = open(sys.argv[2]).read(), open(sys.argv[3]).read()
ok = "x: load factor" in d and "x: load factor" in de and "strain energy" in de
for c in ("ux", "uy", "uz"):
    v = [float(r["tip." + c]) for r in rows]
    m = re.search(r"^  curve '%s': (\d+) points, x (\S+) \.\. (\S+), y (\S+) \.\. (\S+)$" % c, d, re.M)
    got = [float(x) for x in m.groups()] if m else None
    want = [len(rows), min(lf), max(lf), min(v), max(v)]
    print("# tip.%s: drawn %s, history %s" % (c, got, want))
    ok = ok and got is not None and got[0] == want[0] and all(
        abs(a - b) <= 1e-8 * max(abs(b), 1e-12) for a, b in zip(got[1:], want[1:]))
sys.exit(0 if ok and max(lf) > min(lf) else 1)
PYEOF
rc=$?; cat "$T/static.cmp"
check "static: probes.png plots the probe's ux, uy, uz against the load factor; energy.png against the load factor" \
  test $rc -eq 0

# dynamic: the cantilever strip under a pulse keeps the time plots
crun cantilever_strip_pulse dynamic
for f in energy momentum probes newton; do
  check "dynamic: $f.png written and a PNG" png "$T/dynamic/$f.png"
done
check "dynamic: plotted against time, no modes.png" \
  sh -c 'grep -q "abscissa: time" "$1" && test ! -e "$2"' - "$T/dynamic.out" "$T/dynamic/modes.png"

# two dynamic stages (implicit, then explicit): where this build's history has
# the column "stage", its boundary is marked where the stage number changes;
# without the column, no boundary is drawn
mkdir -p "$T/two"
"$CRDYN" run "$here/tests/valgrind/dynamic_strip.json" --out "$T/two" --quiet >"$T/two.run" 2>&1 &&
  "$CRDYN" plot "$T/two" >"$T/two.out" 2>"$T/two.err"; rc=$?
if [ $rc -eq 0 ]; then ok "two-stage dynamic run: crdyn run and crdyn plot exit 0"
else not_ok "two-stage dynamic run: crdyn run and crdyn plot exit 0 (got $rc)"; show "$T/two.run"; show "$T/two.err"; fi
desc "$T/two/energy.png" >"$T/two.desc"
"$PY" - "$T/two/history.csv" "$T/two.desc" "$T/two.out" >"$T/two.cmp" <<'PYEOF'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
d, out = open(sys.argv[2]).read(), open(sys.argv[3]).read()
got = [float(x) for x in re.findall(r"^  vertical line 'stage \d+ starts' at x = (\S+)$", d, re.M)]
if rows[0][-1] != "stage":
    print("# this build writes no stage column: no boundary expected, drawn %s" % got)
    sys.exit(0 if not got and "stage" not in out else 1)
t, s = [float(r[1]) for r in rows[1:]], [float(r[-1]) for r in rows[1:]]
want = [t[i - 1] for i in range(1, len(s)) if s[i] != s[i - 1] and s[i - 1] >= 1]
n = sum(abs(g - want[0]) <= 1e-9 * max(1.0, abs(want[0])) for g in got) if len(want) == 1 else 0
print("# stage column: boundaries at time %s, energy.png marks %s" % (want, got))
sys.exit(0 if len(want) == 1 and n == 2 and len(got) == 2 else 1)
PYEOF
rc=$?; cat "$T/two.cmp"
check "two-stage dynamic run: energy.png marks the start of stage 2 in both panels (when history.csv has a stage column)" \
  test $rc -eq 0

# an auto stage (column "integrator"): steps.png draws the explicit and the
# implicit steps as two curves, each over its own stretch of time; the
# two-stage history above (no such column) draws one curve
"$CRDYN" run "$here/tests/restart/strip_hybrid.json" --out "$T/auto" --quiet >/dev/null 2>&1
"$PY" "$TOOL" "$T/auto" >/dev/null 2>&1
desc "$T/auto/steps.png" >"$T/auto.desc"
check "auto stage: steps.png has a curve of explicit and one of implicit steps" \
  sh -c 'grep -q "curve .explicit steps." "$1" && grep -q "curve .implicit steps." "$1"' - "$T/auto.desc"
desc "$T/two/steps.png" >"$T/two_steps.desc" 2>/dev/null
check "no integrator column: steps.png has the one curve of step lengths" \
  sh -c 'grep -q "curve .step length." "$1" && ! grep -q "explicit steps" "$1"' - "$T/two_steps.desc"

echo "1..$n"
[ "$nfail" -eq 0 ]
