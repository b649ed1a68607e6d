#!/bin/sh
# The CUDA backend and the device solver from the command line (docs/cuda.md).
# Everywhere:
#  - the CUDA sources compile without a single warning (nvcc's log of the
#    build, and the host files that include the CUDA headers, with gcc), and
#    the check would see one: without DISABLE_CUSOLVER_DEPRECATED it does;
#  - --solver validation (unknown name, cudss not built, a device solver
#    without a device);
#  - the bundle of shared libraries for the GPU machine (profiling/gpu_bundle.sh)
#    is self-sufficient: with LD_LIBRARY_PATH at it and nothing else, every
#    library the binary needs outside glibc and CUDA resolves into it, and a
#    case runs.
# Without a GPU (here): --backend cuda stops with a clear message, a non-zero
# exit and no summary that looks complete; --backend auto runs on the CPU
# and says so; the GPU checks are skipped, said and counted.
# With a GPU (profiling/gpu_check.sh, CRDYN_REQUIRE_CUDA=1): the flying plate,
# the strip (implicit and explicit) and a static roof run on CUDA and match
# the CPU's history to 1e-9 of each column's magnitude, with the atomic and
# the deterministic assembly; two deterministic runs are bitwise equal; the
# cusolver device Cholesky gives the CPU's history to 1e-9 too.  The
# resident explicit loop (backend_cuda_explicit.c): it is used and says so,
# with the lean force kernel; the element kernel (CRDYN_CUDA_EX_FORCE=elem)
# gives the lean kernel's history to 1e-9;
# the explicit flying plate, the strip and the strip with prescribed motion
# match the CPU's history to 1e-9 with serial sums (--deterministic; bitwise
# is reported when it is) and with the tree sums (default); two default
# runs are byte-identical; it matches the host loop on the same device; a
# moment load falls back, saying so; the watchdogs stop it with the CPU's
# message; SIGINT + --restart gives the CPU's history; --timing has the
# element-force (CUDA events) and step rows.
CRDYN=${CRDYN:-./build/crdyn}
BUILD=$(dirname "$CRDYN")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
has_cuda=0
"$CRDYN" devices 2>/dev/null | grep -q 'cuda' && has_cuda=1

# ---- the build: no warnings ----------------------------------------------
# (on the GPU machine, CRDYN_GPU_CHECK=1: the build and the bundle were
# checked where they were made; that machine has neither the logs nor gcc's
# dependencies)
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
if [ "${CRDYN_GPU_CHECK:-0}" = 1 ]; then
  skip "build warnings: checked on the build machine (CRDYN_GPU_CHECK=1)"
elif [ $has_cuda = 1 ]; then
  for cu in src/kernels/*.cu; do  # every CUDA source (crd_cuda.cu, crd_cuda_explicit.cu, ...)
    log="$BUILD/obj/$(basename "$cu").o.log"
    if [ -e "$log" ]; then
      c=$(grep -ci 'warning' "$log")
      [ "$c" -eq 0 ] && ok "nvcc built $cu without warnings ($log: $(wc -l <"$log") lines)" \
        || { nok "nvcc warnings in $log"; sed 's/^/# /' "$log" | head -20; }
    else
      nok "nvcc's build log $log is missing"
    fi
  done
  if [ -e "$CUDA_INC/cusolverSp.h" ]; then
    flags="-D_GNU_SOURCE -Iinclude -I/usr/include/suitesparse -DCRD_HAVE_CUDA -isystem $CUDA_INC -std=c11 -Wall -Wextra -fopenmp"
    srcs="src/host/backends/cuda/backend_cuda.c src/host/backends/cuda/backend_cuda_explicit.c src/host/solvers/solver_cusolver.c src/host/backends/backend.c src/host/solvers/solver_cholmod.c src/host/analysis/run.c"
    # compiled for real at -O2 (some warnings, e.g. -Wformat-truncation, need the optimizer)
    r=0; : >"$tmp/cc.log"
    for f in $srcs; do
      ${CC:-cc} -O2 -c -o "$tmp/o.o" $flags -DDISABLE_CUSOLVER_DEPRECATED -DDISABLE_CUSPARSE_DEPRECATED "$f" >>"$tmp/cc.log" 2>&1 || r=1
    done
    [ $r -eq 0 ] && ! grep -qi warning "$tmp/cc.log" && ok "gcc -Wall -Wextra: the CUDA host files compile without warnings" \
      || { nok "gcc on the CUDA host files (rc $r)"; sed 's/^/# /' "$tmp/cc.log" | head -20; }
    # the check can fail: without the defines cusolverSp's deprecations warn
    ${CC:-cc} -fsyntax-only $flags src/host/solvers/solver_cusolver.c >"$tmp/cc2.log" 2>&1
    w=$(grep -c 'deprecated' "$tmp/cc2.log")
    [ "$w" -gt 0 ] && ok "the warning check sees warnings: without DISABLE_CUSOLVER_DEPRECATED gcc gives $w deprecation lines" \
      || nok "no deprecation warnings without DISABLE_CUSOLVER_DEPRECATED (the check cannot fail?)"
  else
    skip "gcc warning check of the CUDA host files: no $CUDA_INC/cusolverSp.h"
  fi
else
  skip "no CUDA in this build ($CRDYN devices does not list cuda): warning checks"
fi

# ---- solver validation -----------------------------------------------------
case_s=cases/scordelis_lo_4.json
"$CRDYN" run $case_s --out "$tmp/s1" --quiet --solver nosuch >"$tmp/log" 2>&1; r=$?
[ $r -ne 0 ] && grep -q "unknown linear solver" "$tmp/log" && ok "--solver nosuch refused: $(cat "$tmp/log")" \
  || nok "--solver nosuch refused (rc $r): $(cat "$tmp/log")"
"$CRDYN" run $case_s --out "$tmp/s2" --quiet --solver cudss >"$tmp/log" 2>&1; r=$?
[ $r -ne 0 ] && grep -q "no cuDSS\|--solver cudss: no usable CUDA device" "$tmp/log" && ok "--solver cudss refused clearly: $(cat "$tmp/log")" \
  || nok "--solver cudss refused (rc $r): $(cat "$tmp/log")"
"$CRDYN" run $case_s --out "$tmp/s3" --quiet --solver cholmod >"$tmp/log" 2>&1; r=$?
[ $r -eq 0 ] && grep -q '"solver":[[:space:]]*"cholmod"' "$tmp/s3/summary.json" && ok "--solver cholmod runs; summary.json names the solver" \
  || nok "--solver cholmod (rc $r): $(cat "$tmp/log")"

# ---- bundle for the GPU machine ---------------------------------------------
if [ "${CRDYN_GPU_CHECK:-0}" = 1 ]; then
  skip "bundle self-sufficiency: checked on the build machine (CRDYN_GPU_CHECK=1)"
elif sh profiling/gpu_bundle.sh "$BUILD" "$tmp/bundle" >"$tmp/blog" 2>&1; then
  env -i LD_LIBRARY_PATH="$tmp/bundle/lib" ldd "$tmp/bundle/crdyn" >"$tmp/ldd" 2>&1
  outside=$(awk '/=>/ {print $1, $3}' "$tmp/ldd" | grep -v "$tmp/bundle/lib" | \
            grep -Ev '^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^ ]*)\.so|^(libcuda|libcudart|libcusolver|libcusparse|libcublas|libcublasLt|libnvJitLink)\.so|linux-vdso' )
  missing=$(grep -c 'not found' "$tmp/ldd")
  mib=$(du -sm "$tmp/bundle" | cut -f1)
  if [ -z "$outside" ] && [ "$missing" -eq 0 ]; then
    ok "bundle: every non-glibc, non-CUDA library resolves into it ($(ls "$tmp/bundle/lib" | wc -l) libraries, $mib MiB with the binary)"
  else
    nok "bundle: resolved outside it: $outside; not found: $missing"; sed 's/^/# /' "$tmp/ldd"
  fi
  # what travels to the GPU machine is the packed tarball (a carry holds 64 MiB in all)
  packed=$(du -m "$tmp/bundle.tar.gz" 2>/dev/null | cut -f1)
  [ -n "$packed" ] && [ "$packed" -lt 64 ] && ok "packed bundle is under 64 MiB ($packed MiB; $mib MiB unpacked)" \
    || nok "packed bundle is ${packed:-?} MiB (over the 64 MiB a carry allows)"
  env -i LD_LIBRARY_PATH="$tmp/bundle/lib" PATH=/usr/bin:/bin "$tmp/bundle/crdyn" run $case_s --out "$tmp/b1" --quiet \
    --backend cpu >"$tmp/log" 2>&1; r=$?
  [ $r -eq 0 ] && grep -q '"status":[[:space:]]*"complete"' "$tmp/b1/summary.json" && ok "the bundled binary runs a case with LD_LIBRARY_PATH at the bundle only" \
    || nok "bundled binary run (rc $r): $(head -5 "$tmp/log")"
else
  nok "profiling/gpu_bundle.sh failed"; sed 's/^/# /' "$tmp/blog"
fi

# ---- --backend cuda / auto ---------------------------------------------------
"$CRDYN" run $case_s --out "$tmp/c1" --quiet --backend cuda >"$tmp/log" 2>&1; r=$?
if [ $r -ne 0 ]; then
  gpu=0
  why=$(head -1 "$tmp/log")
  if [ "${CRDYN_REQUIRE_CUDA:-0}" = 1 ]; then nok "CUDA required (CRDYN_REQUIRE_CUDA=1): $why"; fi
  if grep -q "no usable CUDA device\|'cuda' is not compiled" "$tmp/log"; then
    ok "--backend cuda without a GPU stops (status $r): $why"
  else
    nok "--backend cuda failed without the expected message: $why"
  fi
  if [ -e "$tmp/c1/summary.json" ] && grep -q '"status":[[:space:]]*"complete"' "$tmp/c1/summary.json"; then
    nok "--backend cuda left a summary.json that says complete"
  else
    ok "--backend cuda left no summary that looks complete"
  fi
  "$CRDYN" run $case_s --out "$tmp/a1" --backend auto >"$tmp/log" 2>&1; r=$?
  [ $r -eq 0 ] && grep -q "backend auto: running on the CPU" "$tmp/log" && grep -q '"backend":[[:space:]]*"cpu"' "$tmp/a1/summary.json" \
    && ok "--backend auto falls back to the CPU and says so: $(grep 'backend auto' "$tmp/log")" \
    || nok "--backend auto fallback (rc $r): $(cat "$tmp/log")"
  "$CRDYN" run $case_s --out "$tmp/a2" --backend auto --quiet >"$tmp/log" 2>&1
  grep -q "backend auto: running on the CPU" "$tmp/log" && ok "--backend auto says so with --quiet too" \
    || nok "--backend auto --quiet is silent about the fallback"
  "$CRDYN" run $case_s --out "$tmp/s4" --quiet --solver cusolver >"$tmp/log" 2>&1; r=$?
  [ $r -ne 0 ] && grep -q -- "--solver cusolver: \(no usable CUDA device\|this build has no CUDA\)" "$tmp/log" \
    && ok "--solver cusolver without a GPU refused: $(cat "$tmp/log")" || nok "--solver cusolver without a GPU (rc $r): $(cat "$tmp/log")"
  sed 's/"format": 1,/"format": 1, "backend": "cuda",/' $case_s >"$tmp/cudacase.json"
  "$CRDYN" run "$tmp/cudacase.json" --out "$tmp/c2" --quiet >"$tmp/log" 2>&1; r=$?
  [ $r -ne 0 ] && grep -q '\$.backend' "$tmp/log" && ok "a case with \"backend\": \"cuda\" names \$.backend: $(cat "$tmp/log")" \
    || nok "case backend cuda (rc $r): $(cat "$tmp/log")"
  for c in flying_plate_short strip_implicit strip_explicit scordelis_lo_4 deterministic_repeat cusolver_history \
           resident_used resident_serial_flying_plate_explicit resident_serial_strip_explicit \
           resident_serial_strip_prescribed_explicit resident_tree_flying_plate_explicit resident_tree_strip_explicit \
           resident_tree_strip_prescribed_explicit resident_tree_repeat resident_vs_host_loop resident_elem_kernel resident_fallback \
           resident_unstable_explicit resident_crush_explicit resident_restart resident_timing; do
    skip "$c on CUDA: $why"
  done
  echo "1..$n"; exit 0
fi

# ---- with a GPU: history parity ------------------------------------------------
ok "--backend cuda runs: $(grep -o '"device":[[:space:]]*"[^"]*"' "$tmp/c1/summary.json")"
cmp_hist() { # cmp_hist A B NAME: every column to 1e-9 of its scale, 'bitwise' when equal (tests/cli/hist_cmp.py)
  python3 tests/cli/hist_cmp.py "$1" "$2" "$3"
}
for c in tests/opencl/flying_plate_short.json tests/opencl/strip_implicit.json tests/opencl/strip_explicit.json \
         cases/scordelis_lo_4.json; do
  b=$(basename "$c" .json)
  "$CRDYN" run "$c" --out "$tmp/cpu_$b" --quiet --backend cpu >"$tmp/log" 2>&1 || { nok "$b on the CPU"; continue; }
  for mode in atomic deterministic; do
    opt=""; [ $mode = deterministic ] && opt=--deterministic
    "$CRDYN" run "$c" --out "$tmp/cu_${mode}_$b" --quiet --backend cuda $opt >"$tmp/log" 2>&1 \
      || { nok "$b on CUDA ($mode): $(head -3 "$tmp/log")"; continue; }
    m=$(cmp_hist "$tmp/cpu_$b/history.csv" "$tmp/cu_${mode}_$b/history.csv" "$b $mode") && ok "CUDA history matches the CPU's to 1e-9: $m" \
      || nok "CUDA history against the CPU's: $m"
  done
done
b=flying_plate_short
"$CRDYN" run tests/opencl/$b.json --out "$tmp/cu_det2" --quiet --backend cuda --deterministic >"$tmp/log" 2>&1
if cmp -s "$tmp/cu_deterministic_$b/history.csv" "$tmp/cu_det2/history.csv"; then
  ok "two deterministic CUDA runs of $b give the same history, byte for byte"
else
  nok "two deterministic CUDA runs of $b differ"
fi
"$CRDYN" run tests/opencl/$b.json --out "$tmp/cu_sol" --quiet --backend cuda --solver cusolver >"$tmp/log" 2>&1 \
  && m=$(cmp_hist "$tmp/cpu_$b/history.csv" "$tmp/cu_sol/history.csv" "$b cusolver") && ok "--solver cusolver: $m" \
  || nok "--solver cusolver on $b: $m $(head -3 "$tmp/log")"

# ---- with a GPU: the resident explicit loop (backend.h ex_*, backend_cuda_explicit.c) ----
"$CRDYN" run tests/opencl/strip_explicit.json --out "$tmp/rx" --backend cuda >"$tmp/log" 2>&1
grep -q 'step loop resident on CUDA.*explicit forces by the lean kernel' "$tmp/log" \
  && ok "the explicit strip runs the resident loop, forces by the lean kernel: $(grep 'step loop' "$tmp/log")" \
  || { nok "the explicit strip runs the resident loop"; sed 's/^/# /' "$tmp/log" | head -5; }
# serial sums (--deterministic): the host loop's order, so the CPU's bits up to the element code's asin/sin
# (CUDA's libm against glibc's); tree sums (default): the CPU's history to round-off. Both to 1e-9.
for c in flying_plate_explicit strip_explicit strip_prescribed_explicit; do
  [ -e "$tmp/cpu_$c/history.csv" ] || "$CRDYN" run tests/opencl/$c.json --out "$tmp/cpu_$c" --quiet --backend cpu >"$tmp/log" 2>&1
  for sums in serial tree; do
    opt=""; [ $sums = serial ] && opt=--deterministic
    "$CRDYN" run tests/opencl/$c.json --out "$tmp/rx_${sums}_$c" --quiet --backend cuda $opt >"$tmp/log" 2>&1 \
      || { nok "$c on the resident CUDA loop ($sums sums): $(head -3 "$tmp/log")"; continue; }
    m=$(cmp_hist "$tmp/cpu_$c/history.csv" "$tmp/rx_${sums}_$c/history.csv" "resident $c, $sums sums") \
      && ok "resident CUDA loop matches the CPU's history to 1e-9: $m" || nok "resident CUDA loop against the CPU: $m"
  done
done
c=strip_explicit
"$CRDYN" run tests/opencl/$c.json --out "$tmp/rx_tree2" --quiet --backend cuda >"$tmp/log" 2>&1
cmp -s "$tmp/rx_tree_$c/history.csv" "$tmp/rx_tree2/history.csv" \
  && ok "two resident CUDA runs of $c (tree sums, gather assembly) give the same history, byte for byte" \
  || nok "two resident CUDA runs of $c differ (the tree sums and the gather should repeat)"
CRDYN_EXPLICIT_HOST=1 "$CRDYN" run tests/opencl/$c.json --out "$tmp/rx_host" --quiet --backend cuda --deterministic \
  >"$tmp/log" 2>&1 && m=$(cmp_hist "$tmp/rx_host/history.csv" "$tmp/rx_serial_$c/history.csv" "resident vs host loop on CUDA") \
  && ok "resident loop against the host loop on the same device: $m" || nok "resident against the host loop on CUDA: $m $(head -3 "$tmp/log")"
CRDYN_CUDA_EX_FORCE=elem "$CRDYN" run tests/opencl/$c.json --out "$tmp/rx_elem" --quiet --backend cuda --deterministic \
  >"$tmp/log" 2>&1 && m=$(cmp_hist "$tmp/rx_elem/history.csv" "$tmp/rx_serial_$c/history.csv" "resident loop, element kernel vs lean") \
  && ok "resident loop with the element kernel (CRDYN_CUDA_EX_FORCE=elem) against the lean kernel: $m" \
  || nok "resident loop, element kernel against the lean kernel: $m $(head -3 "$tmp/log")"
"$CRDYN" run tests/opencl/strip_moment_explicit.json --out "$tmp/rx_m" --backend cuda >"$tmp/log" 2>&1
grep -q 'step loop on the host: load 0 is a moment' "$tmp/log" && ok "a moment load falls back to the host loop on CUDA, saying so" \
  || { nok "a moment load falls back to the host loop on CUDA"; sed 's/^/# /' "$tmp/log" | head -5; }
for c in strip_unstable_explicit strip_crush_explicit; do  # energy balance; an inverted element
  "$CRDYN" run tests/watchdog/$c.json --out "$tmp/wd" --quiet --backend cpu 2>&1 | sed "s#$tmp/wd##g" | tail -1 >"$tmp/e_cpu"
  "$CRDYN" run tests/watchdog/$c.json --out "$tmp/wd" --quiet --backend cuda --deterministic 2>&1 | sed "s#$tmp/wd##g" | tail -1 >"$tmp/e_cu"
  if grep -q 'failed' "$tmp/e_cpu" && cmp -s "$tmp/e_cpu" "$tmp/e_cu"; then
    ok "$c: the resident CUDA loop's watchdog stops as the host's: $(cat "$tmp/e_cu")"
  else
    nok "$c: watchdog messages differ"; sed 's/^/# cpu: /' "$tmp/e_cpu"; sed 's/^/# cuda: /' "$tmp/e_cu"
  fi
done
c=strip_explicit  # SIGINT at step 5000 (a checkpoint of the synced state), then --restart
CRDYN_TEST_SIGINT_STEP=5000 "$CRDYN" run tests/opencl/$c.json --out "$tmp/rs" --quiet --backend cuda --deterministic >"$tmp/log" 2>&1
r1=$?
"$CRDYN" run tests/opencl/$c.json --out "$tmp/rs" --quiet --backend cuda --deterministic --restart "$tmp/rs/checkpoint.crd" >>"$tmp/log" 2>&1
r2=$?
if [ $r1 -ne 0 ] && [ $r2 -eq 0 ]; then
  m=$(cmp_hist "$tmp/cpu_$c/history.csv" "$tmp/rs/history.csv" "resident CUDA loop interrupted at step 5000, restarted") \
    && ok "$m" || nok "$m"
else
  nok "resident CUDA loop interrupted ($r1) and restarted ($r2)"; sed 's/^/# /' "$tmp/log" | head -5
fi
"$CRDYN" run tests/opencl/$c.json --out "$tmp/rt" --quiet --backend cuda --timing >"$tmp/log" 2>&1
python3 - "$tmp/rt/summary.json" <<'PY' && ok "resident loop --timing: $(cat "$tmp/rt.txt")" || nok "resident loop --timing: $(cat "$tmp/rt.txt")"
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
ef, a, x = t["element_force"], t["assembly"], t["explicit_step"]
msg = "%d element force evaluations %.3g us each (CUDA events), gather %.3g us, explicit step %.3g us" % (
    ef["count"], 1e6 * ef["seconds_each"], 1e6 * a["seconds_each"], 1e6 * x["seconds_each"])
open(sys.argv[1].rsplit("/", 2)[0] + "/rt.txt", "w").write(msg)
sys.exit(0 if ef["count"] > 0 and ef["seconds"] > 0 and a["count"] > 0 and x["count"] > 0 else 1)
PY
echo "1..$n"
