#!/bin/sh
# The output folder (src/host/io/run_folder.c) and the printed restart command:
#   - the "continue with:" command printed on SIGINT, run verbatim by a
#     shell, ends with outputs byte-identical to an uninterrupted run, also
#     with an output folder whose name needs quoting; the same command
#     without its --out (the old form) does not, which shows the check sees
#     the folder;
#   - a rerun into a used folder leaves no file of the earlier run (frames,
#     history, summary, plots, checkpoint) and keeps the user's own files;
#   - a restart keeps the frames up to the checkpoint and removes later ones.
# POSIX sh, TAP.  $CRDYN: the binary (default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
case "$CRDYN" in /*) ;; *) CRDYN="$(pwd)/$CRDYN" ;; esac
[ -x "$CRDYN" ] || { echo "not ok 1 - $CRDYN is not built"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-outputs.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check()  { if eval "$1"; then ok "$2"; else not_ok "$2"; fi; }

FP=tests/restart/flying_plate_short.json
same_outputs() {
  cmp -s "$1/history.csv" "$2/history.csv" && cmp -s "$1/result.pvd" "$2/result.pvd" || return 1
  for f in "$1"/frames/*.vtu; do cmp -s "$f" "$2/frames/${f##*/}" || return 1; done
  [ "$(ls "$1/frames" | wc -l)" -eq "$(ls "$2/frames" | wc -l)" ]
}

"$CRDYN" run "$FP" --out "$T/ref" --quiet >/dev/null 2>&1
check "[ -f '$T/ref/history.csv' ]" "reference run of $FP"

# --- the printed restart command, run verbatim --------------------------------
# run_printed DIR: interrupt a run into DIR at step 37 and print its
# "continue with:" command
run_printed() {
  CRDYN_TEST_SIGINT_STEP=37 "$CRDYN" run "$FP" --out "$1" --threads 1 --quiet 2>"$T/err" >/dev/null
  sed -n 's/.*; continue with: //p' "$T/err"
}
W="$T/a folder's name"
cmd=$(run_printed "$W")
echo "# printed: $cmd"
check "echo \"\$cmd\" | grep -q -- '--out' && echo \"\$cmd\" | grep -q -- '--threads 1'" \
  "the printed command names the output folder and the options given (--threads 1)"
( cd / && eval "$cmd" ) >/dev/null 2>&1; rc=$?
check "[ $rc -eq 0 ] && same_outputs '$T/ref' \"\$W\" && grep -q '\"complete\"' \"\$W/summary.json\"" \
  "the printed command, run verbatim from another directory, ends with outputs byte-identical to an uninterrupted run (status $rc)"
# control: the old form (no --out) continues into the case's default folder,
# not the interrupted one, and the check above must see that
W2="$T/old form"
cmd=$(run_printed "$W2" | sed 's/ --out .* --restart / --restart /')
( cd "$T" && eval "$cmd" ) >/dev/null 2>&1
check "! same_outputs '$T/ref' \"\$W2\"" "control: the command without --out does not complete the interrupted folder"

# --- progress lines into a pipe: line by line, in order with stderr ---------
# (stdout fully buffered, as before, put the stderr message first and the
# progress lines after it)
CRDYN_TEST_SIGINT_STEP=60 "$CRDYN" run "$FP" --out "$T/pipe" 2>&1 | cat >"$T/pipe.log"
check "tail -1 '$T/pipe.log' | grep -q '^crdyn: interrupted (SIGINT) at step 60' && grep -q '^\[ *[0-9.]*s\] stage 0 implicit: t = 2.8 ' '$T/pipe.log' && ! grep -v '^\[ *[0-9.]*s\] \|^crdyn\|^stage\|^backend\|^note' '$T/pipe.log' | grep -q ." \
  "stdout and stderr into one pipe: whole lines, the progress lines before the interruption message"

# --- a rerun into a used folder ----------------------------------------------
U="$T/used"
"$CRDYN" run "$FP" --out "$U" --quiet >/dev/null 2>&1
echo mine >"$U/notes.txt"; echo mine >"$U/frames/my_view.vtu"; echo png >"$U/energy.png"
echo ckpt >"$U/checkpoint.crd"; echo stale >"$U/modes.csv"
nf_before=$(ls "$U/frames" | grep -c '^frame_')
# the same case with frames every 70 steps: 3 frames instead of 15
sed 's/"vtk_every": 10/"vtk_every": 70/' "$FP" >"$T/fewer_frames.json"
"$CRDYN" run "$T/fewer_frames.json" --out "$U" --quiet >/dev/null 2>&1; rc=$?
nf_after=$(ls "$U/frames" | grep -c '^frame_')
check "[ $rc -eq 0 ] && [ $nf_before -gt $nf_after ] && [ $nf_after -eq $(grep -c 'frame_' "$U/result.pvd") ]" \
  "rerun with fewer frames: $nf_after frames left of $nf_before, all of them in result.pvd"
check "[ ! -e '$U/energy.png' ] && [ ! -e '$U/checkpoint.crd' ] && [ ! -e '$U/modes.csv' ]" \
  "rerun: the earlier run's plot, checkpoint and modes.csv are gone"
check "[ -f '$U/notes.txt' ] && [ -f '$U/frames/my_view.vtu' ]" "rerun: the user's own files are kept"
# the same case without frames at all: no result.pvd, no frames
sed 's/"vtk_every": 10/"vtk_every": 0/' "$FP" >"$T/no_frames.json"
"$CRDYN" run "$T/no_frames.json" --out "$U" --quiet >/dev/null 2>&1
check "[ ! -e '$U/result.pvd' ] && [ $(ls "$U/frames" | grep -c '^frame_') -eq 0 ]" \
  "rerun without frames: no result.pvd and no frame of the earlier run"
# a failed rerun (bad case) touches nothing: the folder is cleared only once the case is valid
cp "$FP" "$T/broken.json"; echo '{' >>"$T/broken.json"
"$CRDYN" run "$FP" --out "$U" --quiet >/dev/null 2>&1
"$CRDYN" run "$T/broken.json" --out "$U" --quiet >/dev/null 2>&1; rc=$?
check "[ $rc -ne 0 ] && grep -q '\"complete\"' '$U/summary.json'" "a rerun with a broken case leaves the earlier complete run as it was"

# --- a restart keeps the frames up to the checkpoint ---------------------------
R="$T/restart"
CRDYN_TEST_SIGINT_STEP=75 "$CRDYN" run "$FP" --out "$R" --quiet >/dev/null 2>&1
echo stale >"$R/frames/frame_000013.vtu"
"$CRDYN" run "$FP" --out "$R" --quiet --restart "$R/checkpoint.crd" >/dev/null 2>&1; rc=$?
check "[ $rc -eq 0 ] && same_outputs '$T/ref' '$R'" "restart: frames after the checkpoint are written anew (a stale later frame replaced)"
echo "1..$n"
