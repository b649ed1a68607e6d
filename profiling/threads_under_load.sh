#!/bin/sh
# Threads under load: wall time of one case with the default threads and with
# --threads 1, first on the machine as it is, then with BUSY competing
# processes (busy loops, one per core by default), all in one run.  The issue
# it guards: the OpenMP runtime spinning at every element-pass barrier while
# the cores are taken by other jobs.
#
#   sh profiling/threads_under_load.sh [CASE] [REPS]
#   CRDYN=build/crdyn BUSY=2 EXTRA_ENV="OMP_WAIT_POLICY=active" sh profiling/threads_under_load.sh
#   BASELINE=/path/to/older/crdyn sh profiling/threads_under_load.sh
#
# Prints one line per configuration (best of REPS runs) and the ratios that
# matter: default threads under load / --threads 1 under load (target <= 2)
# and, with BASELINE (an older binary), this binary's default threads
# against the baseline's, on the machine as it is and under load.
CASE=${1:-cases/flying_l_plate.json}
REPS=${2:-3}
CRDYN=${CRDYN:-build/crdyn}
BUSY=${BUSY:-$(nproc)}
OUT=$(mktemp -d)
trap 'kill $busy_pids 2>/dev/null; rm -rf "$OUT"' EXIT INT TERM

best() { # BINARY [OPTIONS]: best wall time of REPS runs of BINARY with the given extra options
  bin=$1; shift
  b=""
  for r in $(seq "$REPS"); do
    s=$(date +%s.%N)
    env $EXTRA_ENV "$bin" run "$CASE" --out "$OUT/run" --quiet "$@" >/dev/null 2>&1 ||
      { echo "crdyn failed on $CASE $*" >&2; exit 1; }
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  printf '%.3f' "$b"
}

echo "case $CASE, best of $REPS, $(nproc) cores, crdyn $CRDYN ${EXTRA_ENV:+($EXTRA_ENV)}"
idle_def=$(best "$CRDYN"); idle_one=$(best "$CRDYN" --threads 1)
echo "idle:          default threads ${idle_def} s   --threads 1 ${idle_one} s"
if [ -n "$BASELINE" ]; then
  idle_base=$(best "$BASELINE")
  printf 'idle:          baseline %s default threads %s s: this / baseline %.2f\n' "$BASELINE" "$idle_base" \
    "$(echo "$idle_def / $idle_base" | bc -l)"
fi
busy_pids=""
for i in $(seq "$BUSY"); do sh -c 'while :; do :; done' & busy_pids="$busy_pids $!"; done
sleep 1
load_def=$(best "$CRDYN"); load_one=$(best "$CRDYN" --threads 1)
[ -n "$BASELINE" ] && load_base=$(best "$BASELINE")
kill $busy_pids 2>/dev/null; busy_pids=""
echo "$BUSY busy procs:  default threads ${load_def} s   --threads 1 ${load_one} s"
[ -n "$BASELINE" ] && printf '%s busy procs:  baseline default threads %s s: this / baseline %.2f\n' "$BUSY" "$load_base" \
  "$(echo "$load_def / $load_base" | bc -l)"
printf 'under load, default / --threads 1: %.2f (target <= 2)\n' "$(echo "$load_def / $load_one" | bc -l)"
