#!/bin/sh
# Resource usage of the CUDA kernels that have targets (issue 32), read
# from ptxas (-Xptxas -v) at full device optimization for sm_90, the
# code that runs on H100/H200:
#   crd_cu_k_force_lean (src/kernels/crd_cuda_force.cu, the lean explicit
#   force): at most 80 registers, no stack frame, no spill stores or loads;
# in both device builds: the default (FMA contraction, reciprocals:
# CUDA_FMA=1) and the bitwise one (-fmad=false, divisions: CUDA_FMA=0).
# Only that file is compiled (a few seconds; crd_cuda.cu at full
# optimization takes ~40 s), with the Makefile's architecture.  The check
# can fail: the same kernel held to 40 registers (CRD_CU_FORCE_MINBLOCKS=24:
# 24 blocks of 64 threads a multiprocessor) spills,
# and the check must say so.  PTXAS_ALL=1 also prints the usage of every
# kernel of src/kernels/*.cu (the midpoint tangent kernels among them; no
# targets yet: ~40 s more).  Without nvcc: skipped, said and counted.
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
ARCH=${CUDA_ARCH:--gencode arch=compute_90,code=sm_90}
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
if [ ! -x "$NVCC" ]; then
  echo "ok 1 # SKIP ptxas resource usage: no nvcc at $NVCC"; echo "1..1"; exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# usage LOG: one line per kernel: name registers stack spill_stores spill_loads
usage() {
  awk '/Function properties for/ { name = $NF }
       /bytes stack frame/ { st = $1; ss = $(NF - 7); sl = $(NF - 3) }
       /Used [0-9]+ registers/ { for (i = 1; i <= NF; ++i) if ($i == "Used") r = $(i + 1);
                                 if (name != "") print name, r, st, ss, sl; name = "" }' "$1"
}
# check LOG KERNEL MAXREG: 0 when the kernel is within the target
check() {
  line=$(usage "$1" | grep "$2" | head -1)
  [ -n "$line" ] || { echo "no ptxas report for $2"; return 2; }
  set -- $line "$3"
  echo "$1: $2 registers, $3 bytes stack, $4 bytes spill stores, $5 bytes spill loads (target: <= $6 registers, no stack, no spills)"
  [ "$2" -le "$6" ] && [ "$3" -eq 0 ] && [ "$4" -eq 0 ] && [ "$5" -eq 0 ]
}
compile() { # compile LOG FLAGS...: full optimization, ptxas -v
  log=$1; shift
  $NVCC -O3 -std=c++17 $ARCH "$@" -Xptxas -v -Iinclude -c src/kernels/crd_cuda_force.cu -o "$T/f.o" >"$log" 2>&1
}
for mode in 1 0; do
  if [ $mode = 1 ]; then flags="-fmad=true -DCRD_EF_RCP=1"; what="default build (FMA, reciprocals)"
  else flags="-fmad=false"; what="bitwise build (no FMA, divisions)"; fi
  start=$(date +%s)
  if ! compile "$T/ptxas.$mode.log" $flags; then
    nok "crd_cuda_force.cu compiles ($what)"; sed 's/^/# /' "$T/ptxas.$mode.log" | head -20; continue
  fi
  m=$(check "$T/ptxas.$mode.log" crd_cu_k_force_lean 80) && ok "lean force kernel, sm_90, $what: $m ($(( $(date +%s) - start )) s)" \
    || nok "lean force kernel, sm_90, $what: $m"
  grep -q -i warning "$T/ptxas.$mode.log" && { nok "crd_cuda_force.cu compiles without warnings ($what)"; grep -i warning "$T/ptxas.$mode.log" | head -5 | sed 's/^/# /'; }
done
# the check can fail: 40 registers force spills
compile "$T/ptxas.broken.log" -fmad=false -DCRD_CU_FORCE_MINBLOCKS=24
m=$(check "$T/ptxas.broken.log" crd_cu_k_force_lean 80); rc=$?
[ $rc = 1 ] && ok "the check fails on a kernel that spills (the same kernel held to 40 registers): $m" \
  || nok "the check did not fail on the kernel held to 40 registers (status $rc): $m"
if [ "${PTXAS_ALL:-0}" = 1 ]; then
  for cu in src/kernels/*.cu; do
    $NVCC -O3 -std=c++17 $ARCH -fmad=false -Xptxas -v -Iinclude -c "$cu" -o "$T/all.o" >"$T/all.log" 2>&1
    usage "$T/all.log" | while read -r k r st ss sl; do
      echo "# $(basename "$cu"): $k: $r registers, $st bytes stack, $ss / $sl bytes spill stores / loads"
    done
  done
fi
echo "1..$n"
