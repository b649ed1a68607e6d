#!/bin/sh
# Uniform pressure on a simply supported square plate (16x16, h/a = 0.01):
# centre deflection against Navier's series, w = 0.00406235 q a^4 / D
# (Timoshenko & Woinowsky-Krieger, Table 8), within 0.5 %.
CRDYN=${CRDYN:-./build/crdyn}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CRDYN" run cases/plate_ss_pressure.json --out "$tmp/o" --quiet
rc=$?
[ $rc -eq 0 ] && echo "ok 1 - pressure plate run completes" || echo "not ok 1 - pressure plate run completes"
awk -F, 'END { D = 1.0e7 * 1e-6 / (12 * (1 - 0.09)); ref = 0.00406235 / D; e = ($18 - ref) / ref;
  printf "%sok 2 - centre deflection %.6g vs Navier %.6g (rel. error %.2e)\n", (e < 0.005 && e > -0.005) ? "" : "not ", $18, ref, e }' "$tmp/o/history.csv"
echo "1..2"
