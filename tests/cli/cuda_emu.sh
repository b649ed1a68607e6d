#!/bin/sh
# The CUDA backend under a host emulation of CUDA (tests/cuda_emu/): the
# real kernel sources (src/kernels/*.cu, their launches rewritten for
# emu_launch) built by g++, the runtime API emulated over the toolkit's
# declarations (emu_runtime.cpp, host memory), linked with the build's own
# objects in place of the nvcc objects and libcudart.  The threads of a
# block are what a kernel sees on a device: each its own threadIdx, the
# launch's blockDim, __syncthreads / CRD_SYNC a barrier, __shared__ memory
# per block and NaN at its start, locals pattern-filled
# (-ftrivial-auto-var-init=pattern); between barriers the threads (and the
# blocks) run in the forward, reverse or a random order
# (CRDYN_CUDA_EMU_ORDER; the seed, CRDYN_CUDA_EMU_SEED, is drawn per run
# and printed).  Without a GPU this runs the CUDA backend's host code and
# kernel logic here:
#  1. emu_explicit: the resident loop's kernels alone (serial and tree
#     sums, per-step work, the skip after a failing step, the failure flag),
#     in each order;
#  2. emu_split: the element kernels of the three layouts (split: 64
#     threads sharing an element) against the serial bodies bitwise in each
#     order, and the emulation's power to fail: every barrier those kernels
#     meet dropped in turn, the split phases with a forgotten write (a
#     __shared__ read no thread wrote), small kernels with a missing
#     barrier, an unwritten read and divergent barriers;
#  3. t501-cuda under the emulation (CRDYN_CUDA_EMU=1: the device solver
#     part is skipped, it needs cuSOLVER) in each order: element parity, both
#     assemblies, the three layouts, the resident loop against the host
#     steps; and once with a barrier of the split kernels dropped, which
#     must fail;
#  4. crdyn under the emulation: explicit runs on --backend cuda (the
#     resident loop, serial and tree sums, the lean force kernel; on a
#     strip of two explicit stages also the element kernel, and the lean
#     kernel's geometry cache broken two ways, which the same comparison
#     must see) and the implicit strip with
#     rho_inf = 1 (the energy correction; CRDYN_XCHECK=1 in the random
#     order) against the CPU's history, in each order.
# The tree grid of the explicit sums is built smaller here (8 x 32 threads
# instead of 128 x 256: the same code); the device build keeps its
# constants.  What it cannot show: device arithmetic (libm there is
# CUDA's), memory spaces, warps, true concurrency, asynchrony, speed
# (docs/cuda.md, "Host emulation").  Needs g++ and the CUDA headers (the
# CUDA build); otherwise skipped, said and counted.  A sanitizer build's
# flags (config.flags) are used for the emulation too.
CRDYN=${CRDYN:-./build/crdyn}
BUILD=$(dirname "$CRDYN")
B="$BUILD/cuda_emu"
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
# the build's compilers (config.flags: CC CXX flags...), and its sanitizers
set -- $(cat "$BUILD/config.flags" 2>/dev/null) x x
CC=${CC:-$1}; CXX=${CXX:-$2}
case "$CC" in x|"") CC=cc;; esac
case "$CXX" in x|"") CXX=g++;; esac
SANF=""
if grep -q -- '-fsanitize=address' "$BUILD/config.flags" 2>/dev/null; then
  SANF="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
  case "$CXX" in *clang*) SANF="$SANF -fno-sanitize=function,vptr";; esac
fi
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
if ! command -v "$CXX" >/dev/null 2>&1 || [ ! -e "$CUDA_INC/cuda_runtime_api.h" ] || \
   ! nm "$BUILD/obj/backend_cuda.o" 2>/dev/null | grep -q ' T crd_backend_cuda_create'; then
  echo "ok 1 # SKIP the CUDA emulation: needs $CXX, $CUDA_INC/cuda_runtime_api.h and a CUDA build ($BUILD/obj/backend_cuda.o)"
  echo "1..1"; exit 0
fi
start=$(date +%s)
mkdir -p "$B"
SEED=${CRDYN_CUDA_EMU_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export CRDYN_CUDA_EMU_SEED=$SEED
unset CRDYN_CUDA_EMU_ORDER CRDYN_CUDA_EMU_DROP_SYNC
echo "# random thread and block order: seed $SEED (again: CRDYN_CUDA_EMU_SEED=$SEED)"
# locals pattern-filled in the kernels (g++ >= 12, clang): an unset local is 0xfe... (GCC) or NaN-like, not 0
PAT=-ftrivial-auto-var-init=pattern
echo 'int main(void){return 0;}' | $CXX -x c++ $PAT -c -o /dev/null - 2>/dev/null || \
  { echo "# $CXX has no $PAT: locals not pattern-filled"; PAT=""; }
CXXF="-std=c++17 -O1 -Wall -Wextra -Wno-unused-parameter -Wno-unused-function -DCRD_CUX_RED_BLOCKS=8 -DCRD_CUX_RED_THREADS=32 \
  -DCRD_CUX_NODE_THREADS=32 -Itests/cuda_emu -Itests -Iinclude -Isrc/kernels -isystem $CUDA_INC $SANF"
: >"$B/build.log"
for cu in src/kernels/*.cu; do
  k=$(basename "$cu" .cu)
  # kernel<<<grid, block, 0, st>>>(args); -> emu_launch(grid, block, [&] { kernel(args); }); (over lines,
  # keeping them: messages and barrier lines name the .cu's lines)
  { printf '#line 1 "%s"\n' "$cu"
    perl -0pe 's/(\w+)<<<(.*?), 0, st>>>\((.*?)\);/emu_launch($2, [&] { $1($3); });/gs' "$cu"; } >"$B/$k.cpp"
  if grep -q '<<<' "$B/$k.cpp"; then
    nok "a kernel launch in $cu the rewrite does not handle"; grep -n '<<<' "$B/$k.cpp" | sed 's/^/# /'
  fi
  $CXX $CXXF $PAT -c "$B/$k.cpp" -o "$B/$k.o" >>"$B/build.log" 2>&1 || nok "the emulation build of $cu failed"
done
# the scheduler itself at -O2, without the pattern (it is not kernel code)
$CXX $CXXF -O2 -c tests/cuda_emu/emu_runtime.cpp -o "$B/emu_runtime.o" >>"$B/build.log" 2>&1 || nok "emu_runtime.cpp build failed"
$CXX $CXXF "$B/crd_cuda_explicit.o" "$B/emu_runtime.o" tests/cuda_emu/emu_explicit.cpp -o "$B/emu_explicit" \
  >>"$B/build.log" 2>&1 || nok "emu_explicit build failed"
$CXX $CXXF $PAT tests/cuda_emu/emu_split.cpp "$B/crd_cuda.o" "$B/emu_runtime.o" -o "$B/emu_split" \
  >>"$B/build.log" 2>&1 || nok "emu_split build failed"
if [ $n -gt 0 ]; then sed 's/^/# /' "$B/build.log" | head -30; echo "1..$n"; exit 1; fi
if grep -q 'warning' "$B/build.log"; then nok "the emulation builds without warnings"; grep 'warning' "$B/build.log" | head -5 | sed 's/^/# /'; fi
# pass a program's TAP lines on, prefixed
relay() { # relay FILE PREFIX
  while read -r l; do
    case "$l" in
      "not ok "*) nok "$2${l#not ok * - }";;
      "ok "*) ok "$2${l#ok * - }";;
    esac
  done <"$1"
}
ORDERS="forward reverse random"
# 1. the resident loop's kernels
for o in $ORDERS; do
  CRDYN_CUDA_EMU_ORDER=$o timeout 120 "$B/emu_explicit" >"$B/emu_explicit.$o.out" 2>&1; r=$?
  grep -q '^ok' "$B/emu_explicit.$o.out" || { nok "emu_explicit ($o order) gave no results (status $r)"; tail -5 "$B/emu_explicit.$o.out" | sed 's/^/# /'; }
  relay "$B/emu_explicit.$o.out" "kernels, $o order: "
  [ $r -eq 0 ] || grep -q '^not ok' "$B/emu_explicit.$o.out" || nok "emu_explicit ($o order) exited with status $r"
done
# 2. the element kernels and the emulation's power to fail
timeout 300 "$B/emu_split" >"$B/emu_split.out" 2>"$B/emu_split.err"; r=$?
grep -q '^ok' "$B/emu_split.out" || { nok "emu_split gave no results (status $r)"; tail -5 "$B/emu_split.err" | sed 's/^/# /'; }
relay "$B/emu_split.out" "element kernels: "
grep '^#' "$B/emu_split.out" | grep -v 'random thread order'
[ $r -eq 0 ] || grep -q '^not ok' "$B/emu_split.out" || nok "emu_split exited with status $r"
# 3., 4.: the build's objects with the emulated kernels and runtime
objs=$(ls "$BUILD"/obj/*.o | grep -v -e '\.cu\.o$' -e '/main\.o$')
LDL="-lcholmod -lsuitesparseconfig -lcjson -larpack -lopenblas -lm -fopenmp -ldl -lstdc++ -lpthread $SANF"
[ -e /usr/include/CL/cl.h ] && LDL="$LDL -lOpenCL"
$CC -D_GNU_SOURCE -Iinclude -Itests -I/usr/include/suitesparse -std=c11 -O1 -fopenmp $SANF tests/t501-cuda.c $objs "$B"/crd_*.o \
  "$B/emu_runtime.o" -o "$B/t501-emu" $LDL >"$B/link.log" 2>&1 || { nok "t501 under the emulation: link failed"; sed 's/^/# /' "$B/link.log" | head; }
$CC -fopenmp "$BUILD/obj/main.o" $objs "$B"/crd_*.o "$B/emu_runtime.o" -o "$B/crdyn-emu" $LDL >>"$B/link.log" 2>&1 \
  || { nok "crdyn under the emulation: link failed"; sed 's/^/# /' "$B/link.log" | head; }
if [ -x "$B/t501-emu" ]; then
  for o in $ORDERS; do
    CRDYN_CUDA_EMU_ORDER=$o CRDYN_CUDA_EMU=1 timeout 300 "$B/t501-emu" >"$B/t501.$o.out" 2>&1; r=$?
    p=$(grep -c '^ok ' "$B/t501.$o.out"); f=$(grep -c '^not ok' "$B/t501.$o.out")
    [ $r -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 10 ] && ok "t501-cuda under the emulation, $o order: $p passed ($(grep -c resident "$B/t501.$o.out") on the resident loop)" \
      || { nok "t501-cuda under the emulation, $o order: status $r, $p passed, $f failed"; grep -E '^not ok' "$B/t501.$o.out" | head -20 | sed 's/^/# /'; tail -3 "$B/t501.$o.out" | sed 's/^/# /'; }
  done
  # a real kernel broken: the first barrier of elem_split.h's phases (after the Gauss points,
  # before the entries of k_q read them) dropped; t501 must see it in the reverse order
  line=$(grep -n 'CRD_SYNC();' include/crdyn/elem_split.h | head -1 | cut -d: -f1)
  CRDYN_CUDA_EMU_DROP_SYNC=include/crdyn/elem_split.h:$line CRDYN_CUDA_EMU_ORDER=reverse CRDYN_CUDA_EMU=1 timeout 300 \
    "$B/t501-emu" >"$B/t501.drop.out" 2>&1; r=$?
  f=$(grep -c '^not ok' "$B/t501.drop.out")
  [ $r -ne 0 ] && [ "$f" -gt 0 ] && ok "t501-cuda with the barrier at elem_split.h:$line dropped (reverse order) fails, as it must: $f checks fail, e.g. '$(grep -m1 '^not ok' "$B/t501.drop.out" | cut -c1-120)'" \
    || nok "t501-cuda with the barrier at elem_split.h:$line dropped (reverse order): status $r, $f failed (the emulation did not see the missing barrier)"
fi
# history comparison; with atomic assembly (not --deterministic) the block order changes the
# order of the atomicAdds, as on a device, and with it the round-off of K and F: the converged
# residual of an implicit step (~1e-11, its own round-off) may then differ in its leading digits,
# and is compared apart (it must stay below the stage's tolerance; iterations must agree)
cmp_hist() { # cmp_hist CPU EMU NAME ATOMIC
  m=$(python3 tests/cli/hist_cmp.py "$1" "$2" "$3"); rcm=$?
  if [ $rcm -ne 0 ] && [ "$4" = 1 ]; then
    m=$(python3 - "$1" "$2" "$3" <<'PY'
import csv, os, subprocess, sys, tempfile
a, b, name = sys.argv[1:4]
ra, rb = list(csv.DictReader(open(a))), list(csv.DictReader(open(b)))
d, files = tempfile.mkdtemp(), []
for tag, rows in (("a", ra), ("b", rb)):
    files.append(os.path.join(d, tag + ".csv"))
    with open(files[-1], "w", newline="") as f:
        w = csv.DictWriter(f, [k for k in rows[0] if k != "residual"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
p = subprocess.run([sys.executable, "tests/cli/hist_cmp.py", files[0], files[1], name], capture_output=True, text=True)
worst = max((abs(float(x["residual"]) - float(y["residual"])) for x, y in zip(ra, rb)), default=0)
big = max((float(y["residual"]) for y in rb), default=0)
print(p.stdout.strip() + f" without the column residual (the atomic order's round-off: residuals differ by up to {worst:.2e}, the largest {big:.2e})")
sys.exit(p.returncode if big < 1e-9 else 1)
PY
); rcm=$?
  fi
  echo "$m"; return $rcm
}
if [ -x "$B/crdyn-emu" ]; then
  tmp=$(mktemp -d)
  for c in flying_plate_explicit strip_prescribed_explicit; do
    "$CRDYN" run tests/opencl/$c.json --out "$tmp/cpu" --quiet --backend cpu >/dev/null 2>&1
    for o in $ORDERS; do
      for mode in deterministic tree; do
        opt=""; atomic=1; [ $mode = deterministic ] && opt=--deterministic && atomic=0
        CRDYN_CUDA_EMU_ORDER=$o timeout 300 "$B/crdyn-emu" run tests/opencl/$c.json --out "$tmp/emu" --backend cuda $opt >"$tmp/log" 2>&1; r=$?
        if [ $r -ne 0 ] || ! grep -q 'step loop resident on CUDA.*explicit forces by the lean kernel' "$tmp/log"; then
          nok "$c ($mode, $o order) on the emulated CUDA backend: status $r"; sed 's/^/# /' "$tmp/log" | tail -5; continue
        fi
        m=$(cmp_hist "$tmp/cpu/history.csv" "$tmp/emu/history.csv" "$c $mode $o" $atomic); rcm=$?
        # serial sums: the CPU's bits where every step is explicit (the flying plate ends with an
        # implicit stage, whose energy the eval path sums in its block order: round-off there)
        want=""; [ $mode = deterministic ] && [ $c = strip_prescribed_explicit ] && want=bitwise
        if [ $rcm -eq 0 ] && { [ -z "$want" ] || echo "$m" | grep -q bitwise; }; then
          ok "$c on the emulated resident CUDA loop ($mode, $o order) against the CPU: $m"
        else
          nok "$c on the emulated resident CUDA loop ($mode, $o order) against the CPU: $m"
        fi
      done
    done
  done
  # the explicit loop's force kernels on a strip of two explicit stages (the second starts deformed,
  # from the geometry cache the first uploaded): the lean kernel (default) and the element kernel
  # (CRDYN_CUDA_EX_FORCE=elem) give the CPU's bits; the cache's tying rows one field off (CRDYN_TEST_CUDA_GEO=shift)
  # or built at the second stage from its start state (stale) must be seen by the same comparison
  python3 - "$tmp/strip2.json" <<'PY'
import copy, json, sys
c = json.load(open("tests/opencl/strip_prescribed_explicit.json"))
st = c["analysis"]["stages"][0]
a, b = copy.deepcopy(st), copy.deepcopy(st)
a["t_end"] = 0.5 * st["t_end"]
c["analysis"]["stages"] = [a, b]
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
  "$CRDYN" run "$tmp/strip2.json" --out "$tmp/cpu2" --quiet --backend cpu >/dev/null 2>&1
  for v in lean:random elem:forward shift:random stale:reverse; do
    kind=${v%%:*}; o=${v#*:}; envv=""; want=bitwise; lean=1
    case $kind in
      elem) envv=CRDYN_CUDA_EX_FORCE=elem; lean=0;;
      shift|stale) envv=CRDYN_TEST_CUDA_GEO=$kind; want=differ;;
    esac
    rm -rf "$tmp/emu2"
    env $envv CRDYN_CUDA_EMU_ORDER=$o timeout 300 "$B/crdyn-emu" run "$tmp/strip2.json" --out "$tmp/emu2" --backend cuda \
      --deterministic >"$tmp/log" 2>&1; r=$?
    nres=$(grep -c 'step loop resident on CUDA' "$tmp/log"); nlean=$(grep -c 'explicit forces by the lean kernel' "$tmp/log")
    m="no history (the run stopped: $(grep -m1 'error' "$tmp/log" | cut -c1-120))"; rcm=1
    [ -e "$tmp/emu2/history.csv" ] && { m=$(python3 tests/cli/hist_cmp.py "$tmp/cpu2/history.csv" "$tmp/emu2/history.csv" \
      "strip, two stages, $kind, $o"); rcm=$?; }
    if [ $want = bitwise ]; then
      [ $r -eq 0 ] && [ "$nres" -eq 2 ] && [ $((nlean > 0)) -eq $lean ] && echo "$m" | grep -q bitwise \
        && ok "explicit forces by the $kind kernel ($o order), two explicit stages, on the emulated CUDA loop against the CPU: $m" \
        || { nok "explicit forces by the $kind kernel ($o order), two stages: status $r, $nres resident stages, lean named $nlean times: $m"; tail -3 "$tmp/log" | sed 's/^/# /'; }
    else
      # the run goes on (no failure code): the comparison alone must see it
      [ $r -eq 0 ] && [ "$nres" -eq 2 ] && [ $rcm -ne 0 ] \
        && ok "the geometry cache broken ($envv, $o order), the run ends without a failure code, and the same comparison sees it: $m" \
        || nok "the geometry cache broken ($envv, $o order): status $r, $nres resident stages, comparison status $rcm: $m"
    fi
  done
  # the implicit strip with rho_inf = 1 (the energy correction of the midpoint rule: the runs that
  # stopped on the H200), 10 steps, split layout, atomic; with CRDYN_XCHECK=1 in the random order
  python3 - "$tmp/strip.json" <<'PY'
import json, sys
c = json.load(open("tests/opencl/strip_implicit.json"))
st = c["analysis"]["stages"][0]
assert st["rho_inf"] == 1.0
st.update(t_end=0.01)
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
  "$CRDYN" run "$tmp/strip.json" --out "$tmp/cpu" --quiet --backend cpu >/dev/null 2>&1
  for o in $ORDERS; do
    xc=0; [ $o = random ] && xc=1
    CRDYN_XCHECK=$xc CRDYN_CUDA_EMU_ORDER=$o timeout 300 "$B/crdyn-emu" run "$tmp/strip.json" --out "$tmp/emu" --backend cuda >"$tmp/log" 2>&1; r=$?
    if [ $r -ne 0 ]; then
      nok "implicit strip, rho_inf = 1, on the emulated CUDA backend ($o order$([ $xc = 1 ] && echo ', CRDYN_XCHECK=1')): status $r"; sed 's/^/# /' "$tmp/log" | tail -5; continue
    fi
    m=$(cmp_hist "$tmp/cpu/history.csv" "$tmp/emu/history.csv" "strip rho_inf 1 $o" 1); rcm=$?
    [ $rcm -eq 0 ] && ok "implicit strip, rho_inf = 1, 10 steps on the emulated CUDA backend ($o order$([ $xc = 1 ] && echo ', every element checked against the CPU: CRDYN_XCHECK=1')) against the CPU: $m" \
      || nok "implicit strip, rho_inf = 1, on the emulated CUDA backend ($o order) against the CPU: $m"
  done
  rm -rf "$tmp"
fi
echo "# cuda_emu.sh: $(( $(date +%s) - start )) s"
echo "1..$n"
