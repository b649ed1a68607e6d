#!/bin/sh
# tools/crdyn_plot.py: plots of a history.csv.  Synthetic histories (made
# with awk) in a temporary folder: a damped oscillation with one probe P and
# one rigid body B whose load ramps up over the first 20 steps, and a
# statics one (time 0 everywhere); every expected PNG must be written and be
# a PNG, and a malformed header, a missing file, an empty file and a header
# without rows must each fail with a message on stderr and write nothing.
# POSIX sh, run from the repository root; prints TAP.  $PYTHON: the
# interpreter (default: the first of python3, /usr/bin/python3 that can
# import matplotlib).
here=$(cd "$(dirname "$0")/../.." && pwd)
TOOL="$here/tools/crdyn_plot.py"
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
for f in energy momentum probes bodies newton; do
  check "dynamics: $f.png written and a PNG" png "$T/dyn/$f.png"
done
nw=$(grep -c '^wrote ' "$T/dyn.out")
check "dynamics: one 'wrote' line per file (5, got $nw)" test "$nw" -eq 5
check "dynamics: reference row 20 (external work constant from there on) reported" \
  grep -q '^reference row for drift: 20 ' "$T/dyn.out"
left=$(ls -A "$T/dyn" | grep -v -e '^history\.csv$' -e '\.png$')
check "dynamics: no temporary or other files left in the output folder" test -z "$left"

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
for f in energy momentum newton; do
  check "statics: $f.png written to --out and a PNG" png "$T/sta_plots/$f.png"
done
check "statics: plotted against load factor" grep -q 'abscissa: load factor' "$T/sta.out"
check "statics: no probes.png or bodies.png without probe or body columns" \
  test ! -e "$T/sta_plots/probes.png" -a ! -e "$T/sta_plots/bodies.png"

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

echo "1..$n"
[ "$nfail" -eq 0 ]
