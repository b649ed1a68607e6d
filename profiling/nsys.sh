#!/bin/sh
# Nsight Systems timeline of one crdyn run on the CUDA backend (docs/cuda.md,
# profiling/README.md "Reading the CUDA profiles").  The NVTX ranges of
# crdyn (include/crdyn/trace.h) name the phases: "eval tangent" / "eval
# force" / "eval midpoint tangent" with "element ... (cuda)" and "assembly
# (cuda)" inside, "solver analyse", "factorization", "solve", "update",
# "output".  Writes OUT/crdyn.nsys-rep and the text summaries nsys stats
# prints (NVTX ranges, CUDA kernels, memory copies) to OUT/nsys-stats.txt.
#   usage: sh profiling/nsys.sh CASE [OUT] [crdyn options...]
#   e.g.   sh profiling/nsys.sh tests/opencl/flying_plate_short.json build/nsys --solver cusolver
# CRDYN: the binary (default build/gpu-bundle/crdyn, else build/crdyn).
# nsys is not installed on the build machine (docs/performance.md): run it where it is.
CASE=${1:?usage: nsys.sh CASE [OUT] [crdyn options]}
OUTD=${2:-build/nsys}
[ $# -ge 2 ] && shift 2 || shift 1
CRDYN=${CRDYN:-$( [ -x build/gpu-bundle/crdyn ] && echo build/gpu-bundle/crdyn || echo build/crdyn )}
command -v nsys >/dev/null || { echo "nsys.sh: nsys (Nsight Systems) not found on PATH"; exit 2; }
mkdir -p "$OUTD"
timeout ${NSYS_TIMEOUT:-300} nsys profile --trace=cuda,nvtx,osrt --sample=none --force-overwrite=true \
  -o "$OUTD/crdyn" "$CRDYN" run "$CASE" --out "$OUTD/run" --quiet --timing --backend cuda "$@" || exit $?
nsys stats --force-export=true --report nvtx_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum \
  "$OUTD/crdyn.nsys-rep" >"$OUTD/nsys-stats.txt" 2>&1
head -80 "$OUTD/nsys-stats.txt"
echo "nsys.sh: $OUTD/crdyn.nsys-rep (open in nsys-ui), $OUTD/nsys-stats.txt"
