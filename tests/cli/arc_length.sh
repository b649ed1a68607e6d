#!/bin/sh
# Arc length follows the same equilibrium path as load control: the Sze 3.1
# cantilever solved both ways, the arc-length tip deflections interpolated on
# the load-control path (linear between its 100 steps: the interpolation
# error there is about 1e-4 of w).
CRDYN=${CRDYN:-./build/crdyn}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/"max_load_factor": 1.0,/"max_load_factor": 1.0, "arc_length": true,/' cases/sze31_cantilever_shear.json > "$tmp/arc.json"
n=0
check() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
sed 's/"steps": 20/"steps": 100/' cases/sze31_cantilever_shear.json > "$tmp/lc.json"
"$CRDYN" run "$tmp/lc.json" --out "$tmp/lc" --quiet; check $? "load-control run completes"
"$CRDYN" run "$tmp/arc.json" --out "$tmp/arc" --quiet; check $? "arc-length run completes"
awk -F, 'FNR == 1 { next }
  FILENAME ~ /lc/ { n++; L[n] = $3; W[n] = $18; next }
  { lam = $3; w = $18; if (lam > 1.0) { reached = 1; next }
    for (i = 1; i < n; ++i) if (L[i] <= lam && lam <= L[i + 1]) {
      wi = W[i] + (W[i + 1] - W[i]) * (lam - L[i]) / (L[i + 1] - L[i]);
      e = (w - wi) / (wi > 0 ? wi : 1); if (e < 0) e = -e; if (e > emax) emax = e; cnt++ } }
  END { printf "# %d arc-length points compared, max relative difference %.2e\n", cnt, emax;
        exit !(cnt >= 5 && emax < 5e-4 && reached) }' "$tmp/lc/history.csv" "$tmp/arc/history.csv"
check $? "arc-length points lie on the load-control path (tip deflection within 5e-4) and pass load factor 1"
# arc_length_max_factor stops the path there (and the loader refuses what
# cannot work: a negative max_load_factor in a nonlinear analysis)
sed 's/"max_load_factor": 1.0,/"max_load_factor": 1.0, "arc_length": true, "arc_length_max_factor": 0.4,/' \
  cases/sze31_cantilever_shear.json > "$tmp/arc04.json"
"$CRDYN" run "$tmp/arc04.json" --out "$tmp/arc04" --quiet
last=$(tail -1 "$tmp/arc04/history.csv" | cut -d, -f3)
awk -v l="$last" 'BEGIN { exit !(l >= 0.4 && l < 0.6) }'
check $? "arc_length_max_factor 0.4: the path stops past 0.4, short of 1 (last load factor $last)"
sed 's/"max_load_factor": 1.0,/"max_load_factor": -1.0,/' cases/sze31_cantilever_shear.json > "$tmp/neg.json"
err=$("$CRDYN" check "$tmp/neg.json" 2>&1)
echo "$err" | grep -q 'max_load_factor: max_load_factor -1 < 0: .*reverse the loads'
check $? "a negative max_load_factor under load control is refused: $err"
echo "1..$n"
