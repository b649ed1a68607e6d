#!/bin/sh
# The implicit runs with rho_inf = 1 on CUDA (docs/cuda.md, "Status"): on
# the first GPU run (2026-12-04, H200) they stopped on a non-finite
# residual at the first force-only evaluation of a step (Newton iteration 1,
# or 0 after an explicit stage) while rho_inf = 0.9 ran on every layout and
# t501-cuda's element parity held.  This narrows it down in one pass of a
# few seconds per run: the strip, 5 steps, on each layout, with rho_inf = 1
# and 0.99 (the energy correction of the midpoint rule is on only at 1),
# and on the CPU for reference; with CRDYN_XCHECK=1 (backend_xcheck.c)
# the first element whose device forces differ from the CPU's is named,
# with both values, in the run's last line.  One line per run: the case, the status and
# the run's last line.
# Usage: CRDYN=... sh profiling/gpu_diag_implicit.sh [OUTDIR]
CRDYN=${CRDYN:-./build/crdyn}
O=${1:-build/gpu-diag}
mkdir -p "$O"
for rho in 1.0 0.99; do
  python3 - "$rho" "$O/strip_rho$rho.json" <<'PY'
import json, sys
c = json.load(open("tests/opencl/strip_implicit.json"))
st = c["analysis"]["stages"][0]
st.update(rho_inf=float(sys.argv[1]), t_end=0.005)
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
  for cfg in cpu split thread thread0 split-det split-xcheck thread-xcheck; do
    be=cuda; lay=${cfg%-*}; opt=""; xc=0
    [ $cfg = cpu ] && be=cpu
    [ $cfg = split-det ] && opt=--deterministic
    case $cfg in *-xcheck) xc=1;; esac
    CRDYN_XCHECK=$xc CRDYN_CUDA_LAYOUT=$lay timeout 60 "$CRDYN" run "$O/strip_rho$rho.json" --out "$O/r_${rho}_$cfg" --backend $be $opt \
      >"$O/r_${rho}_$cfg.log" 2>&1
    echo "strip rho_inf $rho $cfg: status $? | $(grep -v '^\[' "$O/r_${rho}_$cfg.log" | tail -1 | cut -c1-420)"
  done
done
