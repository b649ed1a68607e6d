#!/bin/sh
# Runs over MPI ranks against one process (docs/distributed.md), one run:
# a 64x64 plate clamped on two sides under a ramped load, 4 implicit steps
# and about 420 explicit steps (dt auto); one OpenMP thread per rank; wall time (min of REPS) and
# the element passes' share as summary.json reports it (time_s), and the
# peak memory of the process that writes it (rank 0: the memory per rank).
# usage: profiling/mpi_scaling.sh [SERIAL_CRDYN] [MPI_CRDYN] [REPS]
SER=${1:-build/crdyn} MPIB=${2:-build-mpi/crdyn} REPS=${3:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-mpiscale.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
for kind in implicit explicit; do
  python3 - "$kind" "$T/$kind.json" <<'PY'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
st = {"integrator": "implicit", "t_end": 4e-3, "dt": 1e-3, "tolerance": 1e-8} if kind == "implicit" else \
     {"integrator": "explicit", "t_end": 7e-4, "dt": "auto"}
c = {"format": 1, "title": "64x64 plate, %s" % kind,
     "mesh": {"generate": {"type": "rectangle", "lx": 1, "ly": 1, "nx": 64, "ny": 64}},
     "sections": [{"elements": "all", "E": 2.1e11, "nu": 0.3, "rho": 7850, "thickness": 0.01}],
     "supports": [{"set": "x0", "fix": "all"}, {"set": "x1", "fix": "all"}],
     "loads": [{"set": "all", "force": [0, 0, -10], "amplitude": [[0, 0], [1e-3, 1]]}],
     "analysis": {"type": "dynamic", "stages": [st]}, "output": {"history_every": 100}}
json.dump(c, open(path, "w"))
PY
done
wall() { python3 -c "import json,sys; j=json.load(open(sys.argv[1]+'/summary.json')); t=j['time_s']; print('%.3f %.3f %.0f' % (t['wall'], t['element_eval_and_assembly'], j['peak_rss_mib']))" "$1"; }
echo "| run | implicit: wall s, elements s, rank 0 peak MiB | explicit: wall s, elements s, rank 0 peak MiB |"
echo "|---|---|---|"
for how in "one process" "mpirun -n 1" "mpirun -n 2" "one process, 2 threads"; do
  row="| $how |"
  for kind in implicit explicit; do
    best=""
    for r in $(seq "$REPS"); do
      case "$how" in
        "one process") "$SER" run "$T/$kind.json" --out "$T/o" --quiet --threads 1 >/dev/null ;;
        "one process, 2 threads") OMP_NUM_THREADS=2 "$SER" run "$T/$kind.json" --out "$T/o" --quiet --threads 2 >/dev/null ;;
        *) mpirun --oversubscribe -n "${how##* }" "$MPIB" run "$T/$kind.json" --out "$T/o" --quiet --threads 1 >/dev/null ;;
      esac
      w=$(wall "$T/o")
      if [ -z "$best" ] || [ "$(echo "$w $best" | awk '{print ($1 < $3)}')" = 1 ]; then best=$w; fi
    done
    row="$row $best |"
  done
  echo "$row"
done
