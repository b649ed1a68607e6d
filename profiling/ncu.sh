#!/bin/sh
# Nsight Compute profile of crdyn's element kernels (docs/cuda.md): the
# tangent (crd_k_static_split / crd_k_mid_split of src/kernels/elements.h,
# the default layout; crd_k_static / crd_k_mid for "thread",
# crd_cu_k_static / crd_cu_k_mid for "thread0") and the assembly kernels
# (crd_cu_k_scatter, crd_k_gather), a few launches each, with the
# sections that say what bounds them: speed of light, memory workload,
# occupancy, launch statistics (registers, local memory: the element
# functions run on thread 0 of each block and spill), warp state.
#   usage: sh profiling/ncu.sh CASE [OUT] [crdyn options...]
#   e.g.   sh profiling/ncu.sh tests/opencl/strip_implicit.json build/ncu --deterministic
# KERNELS: a regex of kernel names (default all crd_k_* and crd_cu_k_*), NCU_COUNT launches per kernel (default 3).
# ncu is not installed on the build machine (docs/performance.md): run it where it is.
CASE=${1:?usage: ncu.sh CASE [OUT] [crdyn options]}
OUTD=${2:-build/ncu}
[ $# -ge 2 ] && shift 2 || shift 1
CRDYN=${CRDYN:-$( [ -x build/gpu-bundle/crdyn ] && echo build/gpu-bundle/crdyn || echo build/crdyn )}
command -v ncu >/dev/null || { echo "ncu.sh: ncu (Nsight Compute) not found on PATH"; exit 2; }
mkdir -p "$OUTD"
timeout ${NCU_TIMEOUT:-300} ncu --kernel-name "regex:${KERNELS:-crd_(cu_)?k_}" --launch-count "${NCU_COUNT:-3}" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats -f -o "$OUTD/crdyn" \
  "$CRDYN" run "$CASE" --out "$OUTD/run" --quiet --backend cuda "$@" || exit $?
ncu --import "$OUTD/crdyn.ncu-rep" --page details >"$OUTD/ncu-details.txt" 2>&1
grep -E "crd_(cu_)?k_|Duration|Registers Per Thread|Achieved Occupancy|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Local" \
  "$OUTD/ncu-details.txt" | head -80
echo "ncu.sh: $OUTD/crdyn.ncu-rep (open in ncu-ui), $OUTD/ncu-details.txt"
