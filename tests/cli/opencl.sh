#!/bin/sh
# The OpenCL backend against the CPU backend, run by run (issue: backend
# parity): the flying L-plate (implicit, tumbling, 2.5 s; and under
# gravity, explicit then implicit), the cantilever strip under its pulse
# (implicit and explicit), a static roof (Scordelis-Lo 4x4).  Explicit
# stages run the device-resident loop (backend.h ex_*), which must say so;
# a moment load falls back to the host loop, saying why; the explicit
# watchdogs stop both backends at the same step with the same message; a
# resident run interrupted by SIGINT restarts to the uninterrupted history.  Every history column must match the CPU's to 1e-9 of the column's
# largest magnitude (on PoCL they are in fact bitwise equal: the element
# code is the same and FP contraction is off, docs/opencl.md).  Also the
# device options: `crdyn devices`, --device out of range, --device without
# a device backend.  The split element kernels (CRDYN_OPENCL_SPLIT=32:
# the element shared by the work-items of its group; the default on GPUs)
# give the same histories as the serial ones to the bit (the implicit
# flying plate and strip, the static roof, the resident explicit loop of
# the flying plate and the strip), and a bad CRDYN_OPENCL_SPLIT is
# refused.  Without an OpenCL device every check is skipped, said
# and counted ("# SKIP"), unless CRDYN_REQUIRE_OPENCL=1 (CI): then it fails.
CRDYN=${CRDYN:-./build/crdyn}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
if ! "$CRDYN" devices >"$tmp/devices" 2>&1; then
  why=$(head -1 "$tmp/devices")
  if [ "${CRDYN_REQUIRE_OPENCL:-0}" = 1 ]; then  # CI: PoCL is installed, a skip is a failure
    echo "not ok 1 - OpenCL device required (CRDYN_REQUIRE_OPENCL=1): $why"; echo "1..1"; exit 1
  fi
  for c in flying_plate_short flying_plate_explicit strip_implicit strip_explicit strip_moment_explicit strip_prescribed \
           scordelis_lo_4 resident_used resident_fallback unstable_explicit crush_explicit checkpoint clblast resident_restart \
           split_flying_plate_short split_strip_implicit split_scordelis_lo_4 split_flying_plate_explicit \
           split_strip_explicit split_bad_value; do
    n=$((n + 1)); echo "ok $n # SKIP $c on OpenCL: $why"
  done
  echo "1..$n"; exit 0
fi
n=$((n + 1)); grep -q 'fp64 yes' "$tmp/devices" && echo "ok $n - crdyn devices lists a device with fp64: $(head -1 "$tmp/devices")" \
  || echo "not ok $n - crdyn devices lists a device with fp64"
cmp_hist() {  # cmp_hist CPU.csv OPENCL.csv NAME N: every column to 1e-9 of its scale (tests/cli/hist_cmp.py)
  if m=$(python3 tests/cli/hist_cmp.py "$1" "$2" "$3"); then
    echo "ok $4 - OpenCL history matches the CPU's to 1e-9: $m"
  else
    echo "not ok $4 - OpenCL history against the CPU's: $m"
  fi
}
for c in tests/opencl/flying_plate_short.json tests/opencl/flying_plate_explicit.json tests/opencl/strip_implicit.json \
         tests/opencl/strip_explicit.json tests/opencl/strip_moment_explicit.json tests/opencl/strip_prescribed_explicit.json \
         cases/scordelis_lo_4.json; do
  b=$(basename "$c" .json)
  "$CRDYN" run "$c" --out "$tmp/cpu_$b" --quiet --backend cpu >"$tmp/log" 2>&1
  r1=$?
  "$CRDYN" run "$c" --out "$tmp/cl_$b" --quiet --backend opencl >>"$tmp/log" 2>&1
  r2=$?
  n=$((n + 1))
  if [ $r1 -ne 0 ] || [ $r2 -ne 0 ]; then
    echo "not ok $n - $b: runs on cpu ($r1) and opencl ($r2)"; sed 's/^/# /' "$tmp/log"; continue
  fi
  cmp_hist "$tmp/cpu_$b/history.csv" "$tmp/cl_$b/history.csv" "$b" "$n"
done
n=$((n + 1))
"$CRDYN" run tests/opencl/strip_explicit.json --out "$tmp/res" --backend opencl >"$tmp/log" 2>&1
grep -q 'step loop resident on OpenCL' "$tmp/log" && echo "ok $n - the explicit strip runs the resident loop: $(grep 'step loop' "$tmp/log")" \
  || { echo "not ok $n - the explicit strip runs the resident loop"; sed 's/^/# /' "$tmp/log"; }
n=$((n + 1))
"$CRDYN" run tests/opencl/strip_moment_explicit.json --out "$tmp/res" --backend opencl >"$tmp/log" 2>&1
grep -q 'step loop on the host: load 0 is a moment' "$tmp/log" && echo "ok $n - a moment load falls back to the host loop, saying so" \
  || { echo "not ok $n - a moment load falls back to the host loop, saying so"; sed 's/^/# /' "$tmp/log"; }
# (CRDYN_TEST_UNSTABLE_DT: the unstable strip's given dt, above the stable estimate, runs into the watchdog)
export CRDYN_TEST_UNSTABLE_DT=1
for c in strip_unstable_explicit strip_crush_explicit; do  # energy balance; an inverted element (with checkpoints)
  "$CRDYN" run tests/watchdog/$c.json --out "$tmp/wd" --quiet --backend cpu 2>&1 | sed "s#$tmp/wd##g" | tail -1 >"$tmp/e_cpu"
  "$CRDYN" run tests/watchdog/$c.json --out "$tmp/wd" --quiet --backend opencl 2>&1 | sed "s#$tmp/wd##g" | tail -1 >"$tmp/e_cl"
  n=$((n + 1))
  if grep -q 'failed' "$tmp/e_cpu" && cmp -s "$tmp/e_cpu" "$tmp/e_cl"; then
    echo "ok $n - $c: the resident loop's watchdog stops as the host's: $(cat "$tmp/e_cl")"
  else
    echo "not ok $n - $c: watchdog messages differ"; sed 's/^/# cpu: /' "$tmp/e_cpu"; sed 's/^/# opencl: /' "$tmp/e_cl"
  fi
done
unset CRDYN_TEST_UNSTABLE_DT
n=$((n + 1))  # checkpoints every 1001 steps (not row steps: only ckpt_sync brings the state), a crash at 2500, restart from 2002
python3 - tests/opencl/strip_explicit.json "$tmp/ck.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["output"]["checkpoint_every"] = 1001; json.dump(c, open(sys.argv[2], "w"))
PY
"$CRDYN" run "$tmp/ck.json" --out "$tmp/ck_cpu" --quiet --backend cpu >"$tmp/log" 2>&1
CRDYN_TEST_SIGKILL_STEP=2500 "$CRDYN" run "$tmp/ck.json" --out "$tmp/ck_cl" --quiet --backend opencl >>"$tmp/log" 2>&1
r1=$?
"$CRDYN" run "$tmp/ck.json" --out "$tmp/ck_cl" --quiet --backend opencl --restart "$tmp/ck_cl/checkpoint.crd" >>"$tmp/log" 2>&1
r2=$?
if [ $r1 -ne 0 ] && [ $r2 -eq 0 ]; then
  cmp_hist "$tmp/ck_cpu/history.csv" "$tmp/ck_cl/history.csv" "resident loop killed at step 2500, restarted from its step-2002 checkpoint" "$n"
else
  echo "not ok $n - resident loop killed ($r1) and restarted ($r2)"; sed 's/^/# /' "$tmp/log"
fi
n=$((n + 1))  # the CLBlast option: measures summed by CLBlastDsum (tree order: close, not bitwise)
if [ -e /usr/include/clblast_c.h ] || ls /usr/lib/*/libclblast.so.1 >/dev/null 2>&1; then
  CRDYN_OPENCL_CLBLAST=1 "$CRDYN" run tests/opencl/flying_plate_explicit.json --out "$tmp/cb" --quiet --backend opencl \
    >"$tmp/log" 2>&1 && cmp_hist "$tmp/cpu_flying_plate_explicit/history.csv" "$tmp/cb/history.csv" \
    "flying_plate_explicit with CRDYN_OPENCL_CLBLAST=1" "$n" \
    || { echo "not ok $n - flying_plate_explicit with CRDYN_OPENCL_CLBLAST=1"; sed 's/^/# /' "$tmp/log"; }
else
  echo "ok $n # SKIP CLBlast option: libclblast not installed"
fi
n=$((n + 1))  # SIGINT at step 5000 of the resident loop (a checkpoint of the synced state), then --restart
CRDYN_TEST_SIGINT_STEP=5000 "$CRDYN" run tests/opencl/strip_explicit.json --out "$tmp/rs" --quiet --backend opencl >"$tmp/log" 2>&1
r1=$?
"$CRDYN" run tests/opencl/strip_explicit.json --out "$tmp/rs" --quiet --backend opencl --restart "$tmp/rs/checkpoint.crd" >>"$tmp/log" 2>&1
r2=$?
if [ $r1 -ne 0 ] && [ $r2 -eq 0 ]; then
  cmp_hist "$tmp/cpu_strip_explicit/history.csv" "$tmp/rs/history.csv" "resident loop interrupted at step 5000 and restarted" "$n"
else
  echo "not ok $n - resident loop interrupted ($r1) and restarted ($r2)"; sed 's/^/# /' "$tmp/log"
fi
for b in flying_plate_short strip_implicit scordelis_lo_4 flying_plate_explicit strip_explicit; do  # split kernels
  c=tests/opencl/$b.json; [ -f "$c" ] || c=cases/$b.json
  n=$((n + 1))
  CRDYN_OPENCL_SPLIT=32 "$CRDYN" run "$c" --out "$tmp/sp_$b" --quiet --backend opencl >"$tmp/log" 2>&1
  r=$?
  if [ $r -eq 0 ] && grep -q 'split over 32' "$tmp/sp_$b/summary.json" && cmp -s "$tmp/cl_$b/history.csv" "$tmp/sp_$b/history.csv"; then
    echo "ok $n - $b: split element kernels (32 work-items per element), history bitwise equal to the serial kernels'"
  else
    echo "not ok $n - $b: split element kernels (rc $r) against the serial kernels"; sed 's/^/# /' "$tmp/log"
  fi
done
# CRDYN_XCHECK=1 (backend_xcheck.c): every element evaluation compared with the CPU's; an
# implicit and an explicit run on the host loop pass, and a device error planted in one element is named
for c in strip_implicit strip_moment_explicit; do
  n=$((n + 1))
  CRDYN_XCHECK=1 "$CRDYN" run tests/opencl/$c.json --out "$tmp/xc_$c" --quiet --backend opencl >"$tmp/log" 2>&1
  r=$?
  if [ $r -eq 0 ] && grep -q 'CRDYN_XCHECK: every element evaluation' "$tmp/log" && [ -e "$tmp/cpu_$c/history.csv" ] \
     && cmp -s "$tmp/cl_$c/history.csv" "$tmp/xc_$c/history.csv"; then
    echo "ok $n - $c with CRDYN_XCHECK=1: every element within 1e-10 of the CPU's, history unchanged"
  else
    echo "not ok $n - $c with CRDYN_XCHECK=1 (rc $r)"; sed 's/^/# /' "$tmp/log" | tail -3
  fi
done
n=$((n + 1))
CRDYN_XCHECK=1 CRDYN_TEST_XCHECK_ELEM=3 "$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/xc_bad" --quiet \
  --backend opencl >"$tmp/log" 2>&1
r=$?
[ $r -ne 0 ] && grep -q 'fg_e of element 3 (nodes .*), entry 7 (node [0-9]*, translation 2): opencl' "$tmp/log" \
  && echo "ok $n - CRDYN_XCHECK names a device error of 1e-7 in element 3: $(grep XCHECK "$tmp/log" | tail -1 | cut -c1-160)" \
  || { echo "not ok $n - CRDYN_XCHECK and a planted device error (rc $r)"; sed 's/^/# /' "$tmp/log" | tail -3; }
# the tangent and the skew part are compared too, at a tolerance that can be
# set: bit for bit (0) PoCL gives the CPU's bits; a planted error of 1e-7 in
# k_e and in E_e is named; at CRDYN_XCHECK_TOL=1e-6 the force error passes
n=$((n + 1))
CRDYN_XCHECK=1 CRDYN_XCHECK_TOL=0 "$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/xc0" --quiet \
  --backend opencl >"$tmp/log" 2>&1; r=$?
[ $r -eq 0 ] && grep -q 'to 0e+00 of' "$tmp/log" \
  && echo "ok $n - CRDYN_XCHECK_TOL=0: forces, tangents and skew parts of every element bit for bit the CPU's" \
  || { echo "not ok $n - CRDYN_XCHECK_TOL=0 (rc $r)"; sed 's/^/# /' "$tmp/log" | tail -3; }
for w in ke:'midpoint tangent k_e of element 3' E:'midpoint skew part E_e of element 3'; do
  n=$((n + 1))
  CRDYN_XCHECK=1 CRDYN_TEST_XCHECK_ELEM=3:${w%%:*} "$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/xc_w" \
    --quiet --backend opencl >"$tmp/log" 2>&1; r=$?
  [ $r -ne 0 ] && grep -q "${w#*:}" "$tmp/log" && echo "ok $n - a planted error in ${w%%:*} is named: $(tail -1 "$tmp/log" | cut -c1-140)" \
    || { echo "not ok $n - planted error in ${w%%:*} (rc $r)"; sed 's/^/# /' "$tmp/log" | tail -3; }
done
n=$((n + 1))
CRDYN_XCHECK=1 CRDYN_XCHECK_TOL=1e-6 CRDYN_TEST_XCHECK_ELEM=3 "$CRDYN" run tests/opencl/strip_implicit.json \
  --out "$tmp/xc_t" --quiet --backend opencl >"$tmp/log" 2>&1; r=$?
[ $r -eq 0 ] && echo "ok $n - CRDYN_XCHECK_TOL=1e-6 lets the planted 4e-8 force error pass" || echo "not ok $n - CRDYN_XCHECK_TOL=1e-6 (rc $r)"
n=$((n + 1))
CRDYN_XCHECK=1 CRDYN_XCHECK_TOL=abc "$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/xc_t" --quiet \
  --backend opencl >"$tmp/log" 2>&1; r=$?
[ $r -ne 0 ] && grep -q 'CRDYN_XCHECK_TOL=abc' "$tmp/log" && echo "ok $n - CRDYN_XCHECK_TOL=abc refused" \
  || echo "not ok $n - CRDYN_XCHECK_TOL=abc refused (rc $r)"
n=$((n + 1))
CRDYN_OPENCL_SPLIT=lots "$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/bad" --quiet --backend opencl >"$tmp/log" 2>&1
r=$?
[ $r -ne 0 ] && grep -q 'CRDYN_OPENCL_SPLIT=lots' "$tmp/log" && echo "ok $n - CRDYN_OPENCL_SPLIT=lots refused: $(cat "$tmp/log")" \
  || echo "not ok $n - CRDYN_OPENCL_SPLIT=lots refused (rc $r)"
n=$((n + 1))
"$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/bad" --quiet --backend opencl --device 99 >"$tmp/log" 2>&1
r=$?
[ $r -ne 0 ] && grep -q 'device 99' "$tmp/log" && echo "ok $n - --device 99 refused: $(cat "$tmp/log")" \
  || echo "not ok $n - --device 99 refused (rc $r)"
n=$((n + 1))
"$CRDYN" run tests/opencl/strip_implicit.json --out "$tmp/bad" --quiet --device 0 >"$tmp/log" 2>&1
r=$?
[ $r -ne 0 ] && grep -q 'no devices' "$tmp/log" && echo "ok $n - --device with the CPU backend refused" \
  || echo "not ok $n - --device with the CPU backend refused (rc $r)"
echo "1..$n"
