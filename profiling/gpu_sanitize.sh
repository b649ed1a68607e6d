#!/bin/sh
# compute-sanitizer on the smallest cases of every CUDA kernel, each run's
# verdict printed as soon as it ends: memcheck on the element kernels
# (a static case), the midpoint kernels (the implicit strip with
# rho_inf = 1, 2 steps) and the resident explicit loop (the explicit strip,
# 20 steps); initcheck on the last two; racecheck and synccheck on the
# midpoint kernels of the split layout (shared memory and barriers).
# compute-sanitizer comes from the bundle's sanitizer.whl (PyPI's
# nvidia-cuda-sanitizer-api, unpacked here) or from the toolkit.
# Usage: CRDYN=... sh profiling/gpu_sanitize.sh BUNDLE_DIR OUTDIR [SECONDS]
B=$1 O=$2 BUDGET=${3:-150}
T0=$(date +%s)
mkdir -p "$O"
CS=""
if [ -e "$B/sanitizer.whl" ]; then
  python3 -m zipfile -e "$B/sanitizer.whl" "$O/wheel" >/dev/null 2>&1
  CS=$(ls "$O"/wheel/nvidia/*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
  [ -n "$CS" ] && chmod +x "$CS" "$(dirname "$CS")"/* 2>/dev/null
fi
[ -z "$CS" ] && CS=$(command -v compute-sanitizer || ls "${CUDA_HOME:-/usr/local/cuda}"/bin/compute-sanitizer 2>/dev/null)
if [ -z "$CS" ]; then echo "sanitizer: not run (no compute-sanitizer: the bundle has no sanitizer.whl, the toolkit none)"; exit 0; fi
python3 - "$O" <<'PY'
import json, sys
o = sys.argv[1]
c = json.load(open("tests/opencl/strip_implicit.json"))
c["analysis"]["stages"][0].update(rho_inf=1.0, t_end=0.002)
json.dump(c, open(o + "/implicit.json", "w"))
c = json.load(open("tests/opencl/strip_explicit.json"))
c["analysis"]["stages"][0]["t_end"] = 0.00005  # some tens of stable steps
json.dump(c, open(o + "/explicit.json", "w"))
PY
fails=0
for run in memcheck:static:split memcheck:implicit:split memcheck:implicit:thread memcheck:explicit:split \
           initcheck:implicit:split initcheck:explicit:split racecheck:implicit:split synccheck:implicit:split; do
  tool=${run%%:*}; rest=${run#*:}; cs=${rest%%:*}; lay=${rest#*:}
  case $cs in static) file=cases/scordelis_lo_4.json ;; *) file="$O/$cs.json" ;; esac
  left=$((BUDGET - ($(date +%s) - T0)))
  [ $left -lt 20 ] && { echo "sanitizer $tool $cs ($lay): not run, the budget is spent"; continue; }
  CRDYN_CUDA_LAYOUT=$lay timeout $((left < 60 ? left : 60)) "$CS" --tool "$tool" --error-exitcode 9 --print-limit 10 \
    "$CRDYN" run "$file" --out "$O/out_${tool}_$cs" --backend cuda --quiet >"$O/$tool-$cs-$lay.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fails=$((fails + 1))
  verdict=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/$tool-$cs-$lay.log" | tail -1)
  [ -n "$verdict" ] || verdict=$(grep -m1 -E 'Error|error' "$O/$tool-$cs-$lay.log")
  echo "sanitizer $tool $cs ($lay): status $rc | $(echo "$verdict" | cut -c1-200)"
done
echo "sanitizer: $fails run(s) with findings or failures ($O)"
