#!/bin/sh
# The implicit runs with rho_inf = 1 on CUDA (docs/cuda.md, "Status"): on
# the first GPU run (H200) they stopped on a non-finite residual at the
# first force-only evaluation of a step while rho_inf = 0.9 ran on every
# layout and t501-cuda's element parity held.  This narrows it down, a few
# seconds a run: the strip, 5 steps, with rho_inf = 1 and 0.99 (the energy
# correction of the midpoint rule is on only at 1), on the CPU for
# reference, on each layout, with the deterministic assembly, with
# CRDYN_XCHECK=1 (the first element whose device results differ from the
# CPU's by 1e-10 is named with both values) and at CRDYN_XCHECK_TOL=0 (the
# first entry whose bits differ), and with the binaries whose device code
# was built at -O1 and at -G (crdyn-O1, crdyn-G beside $CRDYN, where the
# bundle has them): which of these fail tells code generation from logic.
# One line per run, printed as soon as it ends: the case, the status and
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
  for cfg in cpu split thread thread0 split-det split-xcheck thread-xcheck split-xcheck0 split-O1 split-G; do
    be=cuda; lay=${cfg%%-*}; opt=""; xc=0; tol=1e-10; bin=$CRDYN
    [ $cfg = cpu ] && be=cpu
    case $cfg in
      *-det) opt=--deterministic ;;
      *-xcheck) xc=1 ;;
      *-xcheck0) xc=1; tol=0 ;;
      *-O1|*-G) bin="$(dirname "$CRDYN")/crdyn-${cfg##*-}" ;;
    esac
    if [ ! -x "$bin" ]; then echo "strip rho_inf $rho $cfg: not run ($bin is not in the bundle)"; continue; fi
    CRDYN_XCHECK=$xc CRDYN_XCHECK_TOL=$tol CRDYN_CUDA_LAYOUT=$lay timeout 60 "$bin" run "$O/strip_rho$rho.json" \
      --out "$O/r_${rho}_$cfg" --backend $be $opt >"$O/r_${rho}_$cfg.log" 2>&1
    echo "strip rho_inf $rho $cfg: status $? | $(grep -v '^\[' "$O/r_${rho}_$cfg.log" | tail -1 | cut -c1-420)"
  done
done
