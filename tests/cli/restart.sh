#!/bin/sh
# Checkpoint and restart (docs/checkpoint.md, "Using checkpoints"):
# a run stopped at a random step and restarted must give a history.csv
# (and result.pvd, frames) byte-identical to the uninterrupted run.
#   - flying L-plate (load phase and tumbling), SIGINT at a random step
#     (test hook CRDYN_TEST_SIGINT_STEP) and a real SIGINT after a random delay;
#     the same with adaptive implicit steps (dt "auto")
#   - two stages (explicit then implicit): in the explicit stage, at the
#     boundary, in the implicit stage
#   - checkpoint_every (steps) and a crash (SIGKILL) after a random step:
#     the rows written after the last checkpoint are cut and written again
#   - refusals: another case, bad magic, truncated, wrong version, corrupt
# Random steps are printed; set RESTART_SEED to repeat a run.
# POSIX sh, TAP.  $CRDYN: the binary (default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
case "$CRDYN" in /*) ;; *) CRDYN="$(pwd)/$CRDYN" ;; esac
[ -x "$CRDYN" ] || { echo "not ok 1 - $CRDYN is not built"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-restart.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check()  { if eval "$1"; then ok "$2"; else not_ok "$2"; fi; }

seed=${RESTART_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# RESTART_SEED=$seed"
# rnd LO HI: a pseudo-random integer in [LO, HI] from the seed and a counter
k_rnd=0
rnd() { k_rnd=$((k_rnd + 1)); awk -v s="$seed" -v k="$k_rnd" -v lo="$1" -v hi="$2" \
  'BEGIN { srand(s + 7919 * k); print lo + int(rand() * (hi - lo + 1)) }'; }

FP=tests/restart/flying_plate_short.json
S2=tests/restart/strip_two_stage.json
SC=tests/restart/strip_checkpoint_every.json

# same_outputs REF OUT: history, collection and every frame byte-identical
same_outputs() {
  cmp -s "$1/history.csv" "$2/history.csv" && cmp -s "$1/result.pvd" "$2/result.pvd" || return 1
  for f in "$1"/frames/*.vtu; do cmp -s "$f" "$2/frames/${f##*/}" || return 1; done
  [ "$(ls "$1/frames" | wc -l)" -eq "$(ls "$2/frames" | wc -l)" ]
}

# interrupt_restart CASE REF TAG STEP: SIGINT after STEP via the hook, restart
interrupt_restart() {
  out="$T/$3"
  CRDYN_TEST_SIGINT_STEP=$4 "$CRDYN" run "$1" --out "$out" --quiet >"$T/$3.1" 2>&1; rc1=$?
  msg=$(cat "$T/$3.1")
  check "[ $rc1 -ne 0 ] && grep -q 'interrupted (SIGINT) at step $4 .*checkpoint written to $out/checkpoint.crd' '$T/$3.1' && [ -f '$out/checkpoint.crd' ] && [ ! -e '$out/history.csv' ] && grep -q '\"status\":.*\"interrupted\"' '$out/summary.json'" \
    "$3: SIGINT at step $4 stops with status $rc1, the checkpoint, no history.csv, summary status interrupted ($msg)"
  "$CRDYN" run "$1" --out "$out" --quiet --restart "$out/checkpoint.crd" >"$T/$3.2" 2>&1; rc2=$?
  [ $rc2 -eq 0 ] || sed 's/^/# /' "$T/$3.2"
  check "[ $rc2 -eq 0 ] && same_outputs '$2' '$out' && grep -q '\"status\":.*\"complete\"' '$out/summary.json'" \
    "$3: restarted from step $4: history.csv, result.pvd and frames byte-identical to the uninterrupted run"
}

# --- references: uninterrupted runs ---------------------------------------
"$CRDYN" run "$FP" --out "$T/fp_ref" --quiet >/dev/null 2>&1; rc=$?
check "[ $rc -eq 0 ] && [ ! -e '$T/fp_ref/checkpoint.crd' ]" "flying plate uninterrupted (no checkpoint_every: no checkpoint)"
nfp=$(($(wc -l <"$T/fp_ref/history.csv") - 2))
"$CRDYN" run "$S2" --out "$T/s2_ref" --quiet >/dev/null 2>&1
ns2=$(($(wc -l <"$T/s2_ref/history.csv") - 2))
nex=$(awk -F, 'NR > 1 && $2 <= 0.05 + 1e-12 { k = $1 } END { print k }' "$T/s2_ref/history.csv")
echo "# flying plate: $nfp steps; two stages: $ns2 steps, $nex explicit"

# --- flying plate ------------------------------------------------------------
interrupt_restart "$FP" "$T/fp_ref" fp "$(rnd 1 "$nfp")"
# the load phase ends at t = 5 (step 100): a restart inside it and after it
interrupt_restart "$FP" "$T/fp_ref" fp_load "$(rnd 1 99)"
interrupt_restart "$FP" "$T/fp_ref" fp_tumble "$(rnd 101 "$nfp")"
# rho_inf = 0.8: steps solved again with the dissipation xi, whose first
# guess (stage.xi_kappa) the checkpoint carries
FD=tests/restart/flying_plate_dissipative.json
"$CRDYN" run "$FD" --out "$T/fd_ref" --quiet >/dev/null 2>&1
nmono=$(tr -d ' \t' <"$T/fd_ref/summary.json" | grep -o '"monotone_energy_steps":[0-9]*' | cut -d: -f2)
check "[ '${nmono:-0}' -gt 0 ]" "flying plate rho_inf = 0.8: the monotone energy control acts (${nmono:-no} steps solved again)"
interrupt_restart "$FD" "$T/fd_ref" fd_tumble "$(rnd 101 "$nfp")"

# dt "auto": the step, the largest rate and the accelerations of the error
# estimate (stage.h_prev, stage.v_max, node.a_prev) go on from the checkpoint
FA=tests/restart/flying_plate_auto.json
"$CRDYN" run "$FA" --out "$T/fa_ref" --quiet >/dev/null 2>&1
nfa=$(($(wc -l <"$T/fa_ref/history.csv") - 2))
nrej=$(tr -d ' \t' <"$T/fa_ref/summary.json" | grep -o '"step_cuts":[0-9]*' | cut -d: -f2)
check "[ '${nrej:-0}' -gt 0 ] && [ $nfa -gt 140 ]" "flying plate, dt auto: $nfa steps of varying length, ${nrej:-no} refused by the error estimate"
interrupt_restart "$FA" "$T/fa_ref" fa "$(rnd 2 "$nfa")"

# integrator "auto" with a fixed newton_cost (repeatable switching): the
# stretch in progress, the cost model and the prediction windows
# (hybrid.*) go on from the checkpoint; a checkpoint on the step where a
# stretch ends starts the next stretch afresh
FH=tests/restart/strip_hybrid.json
"$CRDYN" run "$FH" --out "$T/fh_ref" >"$T/fh_ref.log" 2>&1
sw=$(grep -o 'step [0-9]*: [a-z]* -> [a-z]*' "$T/fh_ref.log" | awk '{ sub(":", "", $2); printf "%s%s", s, $2; s = " " }')
set -- $sw
check "[ $# -ge 3 ] && grep -q 'step [0-9]*: explicit -> implicit' '$T/fh_ref.log' && grep -q 'implicit -> explicit' '$T/fh_ref.log'" \
  "strip, integrator auto: switches at steps $sw (explicit -> implicit -> explicit -> implicit)"
if [ $# -ge 3 ]; then
  nfh=$(tr -d ' \t' <"$T/fh_ref/summary.json" | grep -o '"steps":[0-9]*' | head -1 | cut -d: -f2)
  interrupt_restart "$FH" "$T/fh_ref" fh_explicit "$(rnd 2 $(($1 - 1)))"
  interrupt_restart "$FH" "$T/fh_ref" fh_switch "$1"
  interrupt_restart "$FH" "$T/fh_ref" fh_implicit "$(rnd $(($1 + 1)) $(($2 - 1)))"
  interrupt_restart "$FH" "$T/fh_ref" fh_late "$(rnd $(($3 + 1)) $((nfh - 1)))"
fi

# a real SIGINT after a random delay (the run takes a few seconds)
delay=$(awk -v s="$seed" 'BEGIN { srand(s); printf "%.2f", 0.3 + 2.5 * rand() }')
"$CRDYN" run "$FP" --out "$T/fp_sig" --quiet >"$T/sig.1" 2>&1 &
pid=$!
sleep "$delay"; kill -INT "$pid" 2>/dev/null; wait "$pid"; rc1=$?
if [ -f "$T/fp_sig/checkpoint.crd" ]; then
  echo "# real SIGINT after ${delay}s: $(cat "$T/sig.1")"
  "$CRDYN" run "$FP" --out "$T/fp_sig" --quiet --restart "$T/fp_sig/checkpoint.crd" >/dev/null 2>&1; rc2=$?
  check "[ $rc1 -eq 130 ] && [ $rc2 -eq 0 ] && same_outputs '$T/fp_ref' '$T/fp_sig'" \
    "flying plate: kill -INT after ${delay}s (exit $rc1), restarted: outputs byte-identical"
else
  check "[ $rc1 -eq 0 ] && same_outputs '$T/fp_ref' '$T/fp_sig'" \
    "flying plate: kill -INT after ${delay}s came after the end (exit $rc1): outputs identical"
fi

# --- two stages, explicit then implicit ---------------------------------------
interrupt_restart "$S2" "$T/s2_ref" s2_explicit "$(rnd 1 $((nex - 1)))"
interrupt_restart "$S2" "$T/s2_ref" s2_boundary "$nex"
interrupt_restart "$S2" "$T/s2_ref" s2_implicit "$(rnd $((nex + 1)) $((ns2 - 1)))"
# twice in one run: stop, restart, stop again later, restart
k1=$(rnd 1 $((nex - 1))); k2=$(rnd $((nex + 1)) $((ns2 - 1)))
out="$T/s2_twice"
CRDYN_TEST_SIGINT_STEP=$k1 "$CRDYN" run "$S2" --out "$out" --quiet >/dev/null 2>&1
CRDYN_TEST_SIGINT_STEP=$k2 "$CRDYN" run "$S2" --out "$out" --quiet --restart "$out/checkpoint.crd" >/dev/null 2>&1; rc1=$?
"$CRDYN" run "$S2" --out "$out" --quiet --restart "$out/checkpoint.crd" >/dev/null 2>&1; rc2=$?
check "[ $rc1 -eq 130 ] && [ $rc2 -eq 0 ] && same_outputs '$T/s2_ref' '$out'" \
  "two stages: stopped at $k1 and again at $k2, restarted twice: outputs byte-identical"

# SIGTERM (a batch system's stop) the same way, after a short delay
"$CRDYN" run "$S2" --out "$T/s2_term" --quiet >"$T/term.1" 2>&1 &
pid=$!
# once the run is in its step loop (its history is open): a signal before
# crdyn has installed its handlers ends it as any program (exit 143), which
# a slow start (the sanitizer build under load) once made this check see
for _ in $(seq 1 500); do [ -f "$T/s2_term/history.csv.part" ] || [ -f "$T/s2_term/history.csv" ] && break; sleep 0.01; done
sleep 0.05; kill -TERM "$pid" 2>/dev/null; wait "$pid"; rc1=$?
if [ -f "$T/s2_term/checkpoint.crd" ]; then
  echo "# SIGTERM: $(cat "$T/term.1")"
  "$CRDYN" run "$S2" --out "$T/s2_term" --quiet --restart "$T/s2_term/checkpoint.crd" >/dev/null 2>&1; rc2=$?
  check "[ $rc1 -eq 130 ] && grep -q 'interrupted (SIGTERM)' '$T/term.1' && [ $rc2 -eq 0 ] && same_outputs '$T/s2_ref' '$T/s2_term'" \
    "two stages: kill -TERM (exit $rc1), restarted: outputs byte-identical"
else
  check "[ $rc1 -eq 0 ] && same_outputs '$T/s2_ref' '$T/s2_term'" "two stages: kill -TERM came after the end (exit $rc1)"
fi

# --- checkpoint_every (steps) and a crash ------------------------------------
"$CRDYN" run "$SC" --out "$T/sc_ref" --quiet >/dev/null 2>&1; rc=$?
check "[ $rc -eq 0 ] && cmp -s '$T/s2_ref/history.csv' '$T/sc_ref/history.csv' && grep -q '\"written\":.*$((ns2 / 500))' '$T/sc_ref/summary.json'" \
  "checkpoint_every 500: the same history as without checkpoints, $((ns2 / 500)) checkpoints written"
"$CRDYN" run tests/restart/strip_checkpoint_seconds.json --out "$T/ss" --quiet >/dev/null 2>&1; rc=$?
nw=$(sed -n 's/.*"written":[^0-9]*\([0-9]*\).*/\1/p' "$T/ss/summary.json")
check "[ $rc -eq 0 ] && [ '${nw:-0}' -ge 1 ] && [ -f '$T/ss/checkpoint.crd' ] && cmp -s '$T/s2_ref/history.csv' '$T/ss/history.csv'" \
  "checkpoint_every \"0.02s\": $nw checkpoints by wall time, the history the same as without"
kc=$(rnd 501 $((ns2 - 1))); last=$((kc / 500 * 500))
out="$T/sc_crash"
CRDYN_TEST_SIGKILL_STEP=$kc "$CRDYN" run "$SC" --out "$out" --quiet >/dev/null 2>&1; rc1=$?
rows=$(($(wc -l <"$out/history.csv.part") - 2))
check "[ $rc1 -eq 137 ] && [ $rows -eq $kc ] && [ ! -e '$out/summary.json' ]" \
  "a crash (SIGKILL) after step $kc: status $rc1, history.csv.part holds $rows steps, no summary"
"$CRDYN" run "$SC" --out "$out" --quiet --restart "$out/checkpoint.crd" >"$T/sc.2" 2>&1; rc2=$?
check "[ $rc2 -eq 0 ] && same_outputs '$T/sc_ref' '$out'" \
  "restarted from the periodic checkpoint of step $last: the $((kc - last)) rows after it rewritten, outputs byte-identical"

# --- refusals ---------------------------------------------------------------
CK="$T/s2_boundary/checkpoint.crd"
CRDYN_TEST_SIGINT_STEP=$nex "$CRDYN" run "$S2" --out "$T/s2_boundary" --quiet >/dev/null 2>&1
refuse() { # TAG FILE CASE PATTERN
  "$CRDYN" run "$3" --out "$T/refuse_$1" --quiet --restart "$2" >"$T/r.$1" 2>&1; rc=$?
  check "[ $rc -ne 0 ] && [ $rc -ne 130 ] && grep -q '$2' '$T/r.$1' && grep -qi '$4' '$T/r.$1' && [ ! -e '$T/refuse_$1/history.csv' ]" \
    "refused: $1 (status $rc): $(head -c 200 "$T/r.$1")"
}
refuse "another case" "$CK" "$FP" "another case"
printf 'NOTACKPT and some bytes to be longer than a header, long enough.' >"$T/bad_magic.crd"
refuse "bad magic" "$T/bad_magic.crd" "$S2" "bad magic"
size=$(wc -c <"$CK")
head -c $((size / 2)) "$CK" >"$T/truncated.crd"
refuse "truncated file" "$T/truncated.crd" "$S2" "truncated"
# version field: bytes 8..11, little-endian u32
{ head -c 8 "$CK"; printf '\143\000\000\000'; tail -c $((size - 12)) "$CK"; } >"$T/version.crd"
refuse "wrong version" "$T/version.crd" "$S2" "version 99"
{ head -c 200 "$CK"; printf 'X'; tail -c $((size - 201)) "$CK"; } >"$T/corrupt.crd"
refuse "corrupt payload" "$T/corrupt.crd" "$S2" "checksum"
refuse "missing file" "$T/none.crd" "$S2" "cannot read"
# the history the checkpoint continues must be the one it recorded
out="$T/s2_hist"
CRDYN_TEST_SIGINT_STEP=10 "$CRDYN" run "$S2" --out "$out" --quiet >/dev/null 2>&1
printf '1,2,3\n' >"$out/history.csv.part"
"$CRDYN" run "$S2" --out "$out" --quiet --restart "$out/checkpoint.crd" >"$T/r.hist" 2>&1; rc=$?
check "[ $rc -ne 0 ] && grep -q 'history.csv.part' '$T/r.hist' && grep -q 'shorter\|does not match' '$T/r.hist'" \
  "refused: a history.csv.part that is not the checkpoint's ($(head -c 160 "$T/r.hist"))"
"$CRDYN" run cases/sze31_cantilever_shear.json --out "$T/static" --quiet --restart "$CK" >"$T/r.static" 2>&1; rc=$?
check "[ $rc -ne 0 ] && grep -q 'only dynamic' '$T/r.static'" "refused: --restart of a static case"
echo "1..$n"
