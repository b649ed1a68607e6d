#!/bin/sh
# make gpu-check: the CUDA check on a GPU machine, in one call of < 8 min
# (docs/cuda.md).  The machine has the CUDA toolkit but none of Debian's
# packages, so it runs the carried bundle (profiling/gpu_bundle.sh, `make
# gpu-bundle` here: build/gpu-bundle.tar.gz, carried as that one path):
#   1. unpack the bundle, LD_LIBRARY_PATH = its lib/ + the CUDA libraries;
#   1b. the lean explicit force kernel (profiling/src/leanbench.c) at 1e4,
#      1e5 and 1e6 elements against the thread layout, line by line
#      (< 90 s; GPU_LEAN_SIZES);
#   1c. the resident explicit loop with the lean force kernel against the
#      element kernels it replaced (profiling/gpu_exloop.py), 1e4, 1e5 and
#      1e6 elements, one line per run as it ends (< GPU_EXLOOP_SECONDS,
#      130 s); GPU_CHECK_ONLY=explicit stops here (at most 4 min: 90 + 150 s of guards)
#   2. the strip implicit with rho_inf = 1 and 0.99 on every layout, with
#      CRDYN_XCHECK (1e-10 and bit for bit) and the -O1 and -G builds
#      (profiling/gpu_diag_implicit.sh: diag.txt), line by line;
#   3. compute-sanitizer (memcheck, initcheck, racecheck, synccheck) on
#      the smallest case of every kernel (profiling/gpu_sanitize.sh), from
#      the bundle's wheel, line by line;
#   4. parity (must pass, CRDYN_REQUIRE_CUDA=1: a missing GPU is a failure):
#      t501-cuda (element vectors and matrices, both assemblies, the
#      cusolver factorization against CHOLMOD) and tests/cli/cuda.sh (the
#      flying plate and the strip histories against the CPU's to 1e-9,
#      deterministic runs bitwise repeatable, --solver cusolver);
#   5. the benchmark ladder (profiling/gpu_ladder.py) until the deadline;
#   4. results in $CRDYN_GPU_OUT (default: $OUT when set, else
#      build/gpu-check): gpu-check.log, parity.log, ladder.json, ladder.md,
#      nvidia-smi.txt; the short table last.
# GPU_CHECK_NSYS=1 adds an Nsight Systems timeline of the flying plate when
# nsys is installed and time is left (OUT/nsys/).
# Hard time guards: every step has a timeout, the ladder a deadline, the
# whole script GPU_CHECK_SECONDS (default 450).
# Usage: make gpu-check  |  sh profiling/gpu_check.sh [BUNDLE_DIR]
T0=$(date +%s)
LIMIT=${GPU_CHECK_SECONDS:-450}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
B=${1:-build/gpu-bundle}
OUTD=${CRDYN_GPU_OUT:-${OUT:-build/gpu-check}}
mkdir -p "$OUTD"
LOG="$OUTD/gpu-check.log"
: >"$LOG"
say() { echo "$*" | tee -a "$LOG"; }
left() { echo $((LIMIT - ($(date +%s) - T0))); }

# ---- 1. the bundle -----------------------------------------------------------
if [ ! -x "$B/crdyn" ] && [ -e "$B.tar.gz" ]; then
  tar -C "$(dirname "$B")" -xzf "$B.tar.gz" || { say "gpu-check: cannot unpack $B.tar.gz"; exit 2; }
fi
if [ ! -x "$B/crdyn" ]; then
  say "gpu-check: no bundle at $B (nor $B.tar.gz): run 'make gpu-bundle' on the build machine and carry build/gpu-bundle.tar.gz"
  exit 2
fi
BA=$(cd "$B" && pwd)
CUDA_LIBS=""
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu; do
  [ -e "$d/libcudart.so.13" ] && { CUDA_LIBS="$d"; break; }
done
if [ -z "$CUDA_LIBS" ]; then  # a toolkit from pip wheels: nvidia/*/lib
  CUDA_LIBS=$(python3 -c 'import glob,os; print(":".join(sorted({os.path.dirname(p) for p in glob.glob("/usr/**/nvidia/**/libcu*.so*", recursive=True)})))' 2>/dev/null)
fi
export LD_LIBRARY_PATH="$BA/lib${CUDA_LIBS:+:$CUDA_LIBS}"
export CRDYN="$BA/crdyn" CRDYN_REQUIRE_CUDA=1 CRDYN_GPU_CHECK=1
say "gpu-check $(date -u '+%Y-%m-%d %H:%M:%S UTC'), limit ${LIMIT}s, bundle $B, CUDA libraries: ${CUDA_LIBS:-not found}"
say "glibc here: $(ldd --version 2>/dev/null | head -1) (the bundle needs 2.36)"
(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1; nvidia-smi 2>&1) >"$OUTD/nvidia-smi.txt"
say "GPU: $(head -2 "$OUTD/nvidia-smi.txt" | tail -1)"
if ! ldd "$CRDYN" >"$OUTD/ldd.txt" 2>&1 || grep -q 'not found' "$OUTD/ldd.txt"; then
  say "gpu-check: the binary's libraries do not resolve:"; grep 'not found' "$OUTD/ldd.txt" | tee -a "$LOG"; exit 2
fi
"$CRDYN" devices 2>&1 | tee -a "$LOG" | grep '^cuda' >/dev/null || say "gpu-check: crdyn sees no CUDA device"
command -v python3 >/dev/null || say "gpu-check: python3 is missing: the history comparisons and the ladder need it"

# ---- 1b. the lean explicit force kernel (issue 32): 1e4, 1e5, 1e6 elements, each line as measured ----
say "--- lean force kernel against the thread layout ($OUTD/leanbench.txt) ---"
if [ -x "$B/bench/leanbench" ]; then
  timeout 90 "$B/bench/leanbench" ${GPU_LEAN_SIZES:-10000 100000 1000000} 2>&1 | tee "$OUTD/leanbench.txt" | tee -a "$LOG"
else
  say "leanbench: not in the bundle"
fi

# ---- 1c. the resident explicit loop: the lean force kernel against the old ones, each line as measured ----
say "--- resident explicit loop: lean force kernel against the element kernels ($OUTD/exloop.txt) ---"
if command -v python3 >/dev/null; then
  timeout $((${GPU_EXLOOP_SECONDS:-130} + 20)) python3 profiling/gpu_exloop.py --crdyn "$CRDYN" --out "$OUTD" \
    --seconds "${GPU_EXLOOP_SECONDS:-130}" --sizes "${GPU_EXLOOP_SIZES:-100,316,1000}" 2>&1 | tee "$OUTD/exloop.txt" | tee -a "$LOG"
fi
if [ "${GPU_CHECK_ONLY:-}" = explicit ]; then
  say "gpu-check: GPU_CHECK_ONLY=explicit: stopped after the explicit loop in $(( $(date +%s) - T0 )) s (no parity verdict)"
  exit 0
fi

# ---- 2. the implicit runs with rho_inf = 1, layout by layout (profiling/gpu_diag_implicit.sh) ----
say "--- implicit rho_inf = 1 and 0.99 by layout, XCHECK, -O1, -G ($OUTD/diag.txt) ---"
timeout $(( $(left) > 200 ? 100 : $(left) / 3 )) sh profiling/gpu_diag_implicit.sh "$OUTD/diag" 2>&1 | tee "$OUTD/diag.txt" | tee -a "$LOG"

# ---- 3. compute-sanitizer (profiling/gpu_sanitize.sh) ----------------------------
say "--- compute-sanitizer ($OUTD/sanitizer) ---"
budget=$(( $(left) > 300 ? 130 : $(left) / 3 ))
timeout $((budget + 10)) sh profiling/gpu_sanitize.sh "$BA" "$OUTD/sanitizer" $budget 2>&1 | tee "$OUTD/sanitizer.txt" | tee -a "$LOG"

# ---- 4. parity ------------------------------------------------------------------
fail=0
P="$OUTD/parity.log"
: >"$P"
if [ -x "$B/tests/t501-cuda" ]; then
  timeout 120 "$B/tests/t501-cuda" >>"$P" 2>&1 || fail=1
else
  echo "not ok - $B/tests/t501-cuda is not in the bundle" >>"$P"; fail=1
fi
timeout $(( $(left) > 200 ? 150 : $(left) / 2 )) sh tests/cli/cuda.sh >>"$P" 2>&1 || fail=1
npass=$(grep -c '^ok ' "$P"); nfail=$(grep -c '^not ok' "$P"); nskip=$(grep -c '^ok .*# SKIP' "$P")
say "parity: $((npass - nskip)) passed, $nfail failed, $nskip skipped ($P)"
grep '^not ok' "$P" | head -20 | tee -a "$LOG"
[ "$nfail" -gt 0 ] && fail=1

# ---- 5. ladder ------------------------------------------------------------------
deadline=$(( $(date +%s) + $(left) - 15 ))
if [ $(left) -gt 40 ]; then
  timeout $(( $(left) - 5 )) python3 profiling/gpu_ladder.py --crdyn "$CRDYN" --out "$OUTD" --deadline $deadline \
    --sizes "${GPU_LADDER_SIZES:-100,316,1000}" --threads "$(nproc)" --flopcount "$B/bench/flopcount" \
    >"$OUTD/ladder.out" 2>&1 || say "ladder: stopped or failed (status $?)"
else
  say "ladder: not run, $(left) s left"
fi

# ---- optional: an Nsight Systems timeline (GPU_CHECK_NSYS=1, where nsys is installed) ----
if [ "${GPU_CHECK_NSYS:-0}" = 1 ] && command -v nsys >/dev/null && [ $(left) -gt 60 ]; then
  CRDYN="$CRDYN" NSYS_TIMEOUT=$(( $(left) - 20 )) sh profiling/nsys.sh tests/opencl/flying_plate_short.json \
    "$OUTD/nsys" >"$OUTD/nsys.out" 2>&1 || say "nsys: failed (status $?), see $OUTD/nsys.out"
fi

# ---- 6. summary -----------------------------------------------------------------
say "--- parity (details in $P) ---"
grep -E '^(not )?ok' "$P" | grep -v '# SKIP' | cut -c1-150 | tail -40 | tee -a "$LOG"
say "--- implicit by layout (diag.txt): the failures ---"
grep -v 'status 0 ' "$OUTD/diag.txt" | cut -c1-200 | tee -a "$LOG"
say "--- sanitizer (sanitizer.txt) ---"
tail -1 "$OUTD/sanitizer.txt" | tee -a "$LOG"
say "--- lean force kernel (leanbench.txt) ---"
[ -e "$OUTD/leanbench.txt" ] && tee -a "$LOG" <"$OUTD/leanbench.txt"
say "--- resident explicit loop, lean against element kernels (exloop.txt) ---"
[ -e "$OUTD/exloop.txt" ] && tee -a "$LOG" <"$OUTD/exloop.txt"
say "--- ladder (results in $OUTD/ladder.json, ladder.md) ---"
[ -e "$OUTD/ladder.out" ] && tee -a "$LOG" <"$OUTD/ladder.out"
say "gpu-check: $( [ $fail = 0 ] && echo PASS || echo FAIL ) in $(( $(date +%s) - T0 )) s"
exit $fail
