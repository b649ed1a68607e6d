#!/bin/sh
# The CUDA backend under a host emulation of CUDA (tests/cuda_emu/): the
# real kernel sources (src/kernels/*.cu, their launches rewritten for
# emu_launch) built by g++, the runtime API emulated over the toolkit's
# declarations (emu_runtime.cpp, host memory, a block's threads as
# coroutines), linked with the build's own objects in place of the nvcc
# objects and libcudart.  Without a GPU this runs the CUDA backend's host
# code and kernel logic here:
#  1. emu_explicit: the resident loop's kernels alone (serial and tree
#     sums, per-step work, the skip after a failing step, the failure flag);
#  2. t501-cuda under the emulation (CRDYN_CUDA_EMU=1: the device solver
#     part is skipped, it needs cuSOLVER): element parity, both assemblies,
#     both layouts, the resident loop against the host steps;
#  3. crdyn under the emulation: explicit runs on --backend cuda (the
#     resident loop, serial and tree sums) against the CPU's history.
# The tree grid is built smaller here (8 x 32 threads instead of 128 x 256:
# the same code); the device build keeps its constants.  What it cannot
# show: device arithmetic (libm there is CUDA's), memory spaces,
# asynchrony, speed.  Needs g++ and the CUDA headers (the CUDA build);
# otherwise skipped, said and counted.
CRDYN=${CRDYN:-./build/crdyn}
BUILD=$(dirname "$CRDYN")
B="$BUILD/cuda_emu"
CXX=${CXX:-g++}
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
if ! command -v "$CXX" >/dev/null 2>&1 || [ ! -e "$CUDA_INC/cuda_runtime_api.h" ] || \
   ! nm "$BUILD/obj/backend_cuda.o" 2>/dev/null | grep -q ' T crd_backend_cuda_create'; then
  echo "ok 1 # SKIP the CUDA emulation: needs $CXX, $CUDA_INC/cuda_runtime_api.h and a CUDA build ($BUILD/obj/backend_cuda.o)"
  echo "1..1"; exit 0
fi
mkdir -p "$B"
CXXF="-std=c++17 -O1 -Wall -Wextra -Wno-unused-parameter -Wno-unused-function -DCRD_CUX_RED_BLOCKS=8 -DCRD_CUX_RED_THREADS=32 \
  -DCRD_CUX_NODE_THREADS=32 -Itests/cuda_emu -Iinclude -isystem $CUDA_INC"
: >"$B/build.log"
for cu in src/kernels/*.cu; do
  k=$(basename "$cu" .cu)
  # kernel<<<grid, block, 0, st>>>(args); -> emu_launch(grid, block, [&] { kernel(args); }); (over lines)
  # and a smaller element block (the emulated threads of crd_cuda.cu's blocks idle but for one)
  perl -0pe 's/(\w+)<<<(.*?), 0, st>>>\((.*?)\);/emu_launch($2, [&] { $1($3); });/gs; s/#define CRD_CU_BLOCK 32/#define CRD_CU_BLOCK 4/' \
    "$cu" >"$B/$k.cpp"
  if grep -q '<<<' "$B/$k.cpp"; then
    nok "a kernel launch in $cu the rewrite does not handle"; grep -n '<<<' "$B/$k.cpp" | sed 's/^/# /'
  fi
  $CXX $CXXF -c "$B/$k.cpp" -o "$B/$k.o" >>"$B/build.log" 2>&1 || nok "the emulation build of $cu failed"
done
$CXX $CXXF -c tests/cuda_emu/emu_runtime.cpp -o "$B/emu_runtime.o" >>"$B/build.log" 2>&1 || nok "emu_runtime.cpp build failed"
$CXX $CXXF "$B/crd_cuda_explicit.o" "$B/emu_runtime.o" tests/cuda_emu/emu_explicit.cpp -o "$B/emu_explicit" \
  >>"$B/build.log" 2>&1 || nok "emu_explicit build failed"
if [ $n -gt 0 ]; then sed 's/^/# /' "$B/build.log" | head -30; echo "1..$n"; exit 1; fi
# 1. the resident loop's kernels
timeout 120 "$B/emu_explicit" >"$B/emu_explicit.out" 2>&1
sed -n 's/^\(not \)*ok [0-9]* - /&/p' "$B/emu_explicit.out" | while read -r l; do echo "$l"; done | sed "s/^\(not \)*ok [0-9]* - /\1ok X - kernels: /" >"$B/k.tap"
while read -r l; do
  case "$l" in "not ok"*) nok "${l#not ok X - }";; *) ok "${l#ok X - }";; esac
done <"$B/k.tap"
[ -s "$B/k.tap" ] || { nok "emu_explicit gave no results"; sed 's/^/# /' "$B/emu_explicit.out" | tail -5; }
# 2., 3.: the build's objects with the emulated kernels and runtime
objs=$(ls "$BUILD"/obj/*.o | grep -v -e '\.cu\.o$' -e '/main\.o$')
LDL="-lcholmod -lsuitesparseconfig -lcjson -larpack -lopenblas -lm -fopenmp -ldl -lstdc++ -lpthread"
[ -e /usr/include/CL/cl.h ] && LDL="$LDL -lOpenCL"
${CC:-cc} -D_GNU_SOURCE -Iinclude -Itests -I/usr/include/suitesparse -std=c11 -O1 -fopenmp tests/t501-cuda.c $objs "$B"/crd_*.o \
  "$B/emu_runtime.o" -o "$B/t501-emu" $LDL >"$B/link.log" 2>&1 || { nok "t501 under the emulation: link failed"; sed 's/^/# /' "$B/link.log" | head; }
${CC:-cc} -fopenmp "$BUILD/obj/main.o" $objs "$B"/crd_*.o "$B/emu_runtime.o" -o "$B/crdyn-emu" $LDL >>"$B/link.log" 2>&1 \
  || { nok "crdyn under the emulation: link failed"; sed 's/^/# /' "$B/link.log" | head; }
if [ -x "$B/t501-emu" ]; then
  CRDYN_CUDA_EMU=1 timeout 300 "$B/t501-emu" >"$B/t501.out" 2>&1; r=$?
  p=$(grep -c '^ok ' "$B/t501.out"); f=$(grep -c '^not ok' "$B/t501.out")
  [ $r -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 10 ] && ok "t501-cuda under the emulation: $p passed ($(grep -c resident "$B/t501.out") on the resident loop)" \
    || { nok "t501-cuda under the emulation: status $r, $p passed, $f failed"; grep -E '^not ok' "$B/t501.out" | head -20 | sed 's/^/# /'; tail -3 "$B/t501.out" | sed 's/^/# /'; }
fi
if [ -x "$B/crdyn-emu" ]; then
  tmp=$(mktemp -d)
  for c in flying_plate_explicit strip_prescribed_explicit; do
    "$CRDYN" run tests/opencl/$c.json --out "$tmp/cpu" --quiet --backend cpu >/dev/null 2>&1
    for mode in deterministic tree; do
      opt=""; [ $mode = deterministic ] && opt=--deterministic
      timeout 300 "$B/crdyn-emu" run tests/opencl/$c.json --out "$tmp/emu" --backend cuda $opt >"$tmp/log" 2>&1; r=$?
      if [ $r -ne 0 ] || ! grep -q 'step loop resident on CUDA' "$tmp/log"; then
        nok "$c ($mode) on the emulated CUDA backend: status $r"; sed 's/^/# /' "$tmp/log" | tail -5; continue
      fi
      m=$(python3 tests/cli/hist_cmp.py "$tmp/cpu/history.csv" "$tmp/emu/history.csv" "$c $mode")
      rcm=$?
      # serial sums: the CPU's bits where every step is explicit (the flying plate ends with an
      # implicit stage, whose energy the eval path sums in its block order: round-off there)
      want=""; [ $mode = deterministic ] && [ $c = strip_prescribed_explicit ] && want=bitwise
      if [ $rcm -eq 0 ] && { [ -z "$want" ] || echo "$m" | grep -q bitwise; }; then
        ok "$c on the emulated resident CUDA loop ($mode) against the CPU: $m"
      else
        nok "$c on the emulated resident CUDA loop ($mode) against the CPU: $m"
      fi
    done
  done
  rm -rf "$tmp"
fi
echo "1..$n"
